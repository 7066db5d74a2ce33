{{ config(materialized='incremental', incremental_strategy='append', on_schema_change='fail') }}
select id{% if var("round", 1) == 2 %}, city{% endif %} from {{ ref('customers') }}

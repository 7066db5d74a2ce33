{{ config(materialized='incremental', incremental_strategy='insert_overwrite') }}
select count(*) as lines, sum(amount) as amount, {{ var("round", 1) }} as round from {{ ref('orders') }}

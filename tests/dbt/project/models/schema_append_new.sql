{{ config(materialized='incremental', incremental_strategy='merge', unique_key='id',
          on_schema_change='append_new_columns') }}
select id, name{% if var("round", 1) == 2 %}, city, upper(tier) as tier_code{% endif %}
from {{ ref('customers') }}

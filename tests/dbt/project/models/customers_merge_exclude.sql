{{ config(materialized='incremental', incremental_strategy='merge', unique_key='id',
          merge_exclude_columns=['first_seen_round']) }}
select id, city, tier, {{ var("round", 1) }} as first_seen_round, {{ var("round", 1) }} as last_round
from {{ ref('customers') }}

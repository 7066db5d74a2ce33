{{ config(materialized='incremental', incremental_strategy='merge', unique_key=['order_id', 'line'],
          merge_update_columns=['amount'], location_root=env_var('DBT_LOCATION_ROOT')) }}
select order_id, line, amount, order_date, '{{ var("round", 1) }}' as loaded_in from {{ ref('orders') }}

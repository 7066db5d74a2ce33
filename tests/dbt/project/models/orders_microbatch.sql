{{ config(materialized='incremental', incremental_strategy='microbatch', event_time='event_time',
          batch_size='day', begin='2026-01-01', partition_by=['order_date']) }}
select order_id, line, amount, event_time, order_date from {{ ref('orders') }}

{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['order_date']) }}
select order_date, count(*) as lines, sum(amount) as amount from {{ ref('orders') }}
{% if is_incremental() %}
where order_date >= '2026-01-03'
{% endif %}
group by order_date

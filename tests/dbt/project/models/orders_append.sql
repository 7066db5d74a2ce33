{{ config(materialized='incremental', incremental_strategy='append') }}
select order_id, line, customer_id, amount, order_date from {{ ref('orders') }}
{% if is_incremental() %}
where order_date > (select max(order_date) from {{ this }})
{% endif %}

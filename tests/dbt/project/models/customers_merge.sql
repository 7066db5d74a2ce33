{{ config(materialized='incremental', incremental_strategy='merge', unique_key='id') }}
select id, name, city, tier, updated_at from {{ ref('customers') }}
{% if is_incremental() %}
where updated_at > (select max(updated_at) from {{ this }})
{% endif %}

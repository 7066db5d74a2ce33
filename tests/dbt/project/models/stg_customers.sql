{{ config(materialized='view') }}
select id, name, city, tier, updated_at from {{ ref('customers') }}

{{ config(materialized='table', partition_by=['tier'], location_root=env_var('DBT_LOCATION_ROOT'),
          tblproperties={'delta.enableDeletionVectors': 'true'}) }}
select c.id, c.name, c.tier, count(distinct o.order_id) as orders, coalesce(sum(o.amount), 0) as total
from {{ ref('stg_customers') }} c left join {{ ref('orders') }} o on o.customer_id = c.id
group by c.id, c.name, c.tier

{% snapshot customers_by_time %}
{{ config(target_schema='snapshots', unique_key='id', strategy='timestamp', updated_at='updated_at',
          file_format='delta') }}
select id, name, city, tier, updated_at from {{ ref('customers') }}
{% endsnapshot %}

{% snapshot customers_by_check %}
{{ config(target_schema='snapshots', unique_key='id', strategy='check', check_cols=['city', 'tier'],
          file_format='delta', invalidate_hard_deletes=True) }}
select id, name, city, tier from {{ ref('customers') }}
{% endsnapshot %}

{{ config(materialized='incremental', incremental_strategy='append', on_schema_change='sync_all_columns',
          tblproperties={'delta.columnMapping.mode': 'name', 'delta.minReaderVersion': '2',
                         'delta.minWriterVersion': '5'}) }}
select id, name{% if var("round", 1) == 2 %}, cast(id * 10 as bigint) as score{% endif %}
from {{ ref('customers') }}
{% if is_incremental() %}
where id > 3
{% endif %}

/*
 * The one grammar of Silt's SQL statements. The build generates the JVM parser (Java target,
 * compiled into the jar) and the Python parser (python/silt/sql/generated) from this file, so it
 * carries no target-specific actions. Statements it does not know fall through `passThrough`
 * to Spark's own parser.
 */
grammar SiltSqlBase;

options { caseInsensitive = true; }

singleStatement
    : statement ';'* EOF
    ;

// Only a Silt statement: tools (the Python CLI) use it to report syntax errors precisely.
singleSiltStatement
    : siltStatement ';'* EOF
    ;

statement
    : siltStatement                                                           #siltCommand
    | .*?                                                                     #passThrough
    ;

siltStatement
    : (DESCRIBE | DESC) HISTORY table=tableRef (LIMIT limit=INTEGER_VALUE)?   #describeHistory
    | (DESCRIBE | DESC) DETAIL table=tableRef                                 #describeDetail
    | (DESCRIBE | DESC) FILES table=tableRef                                  #describeFiles
    | OPTIMIZE table=tableRef (WHERE partitionPredicate=predicateToken)?
        (zorderSpec | full=FULL)?                                             #optimizeTable
    | REORG TABLE table=tableRef (WHERE partitionPredicate=predicateToken)?
        APPLY '(' (PURGE | UPGRADE UNIFORM '(' ICEBERG_COMPAT_VERSION '='
        compatVersion=INTEGER_VALUE ')') ')'                                  #reorgTable
    | VACUUM table=tableRef vacuumModifier*                                   #vacuumTable
    | CONVERT TO DELTA table=tableRef (NO STATISTICS)?
        (PARTITIONED BY '(' partitionSchema=predicateToken ')')?              #convertToDelta
    | GENERATE modeName=identifier FOR TABLE table=tableRef                       #generateManifest
    | (CREATE (OR REPLACE)? | REPLACE) TABLE (IF NOT EXISTS)? target=tableRef
        (SHALLOW | deep=DEEP) CLONE source=tableRef
        (VERSION AS OF version=INTEGER_VALUE | TIMESTAMP AS OF timestamp=STRING)?
        cloneClause*                                                          #cloneTable
    | CHECKPOINT table=tableRef                                               #checkpointTable
    | MSCK REPAIR TABLE table=tableRef SYNC METADATA                          #repairTable
    | RESTORE TABLE? table=tableRef TO
        (VERSION AS OF version=INTEGER_VALUE | TIMESTAMP AS OF timestamp=STRING) #restoreTable
    | ALTER TABLE table=tableRef ADD CONSTRAINT name=identifier
        CHECK '(' condition=predicateToken ')'                                #addConstraint
    | ALTER TABLE table=tableRef DROP CONSTRAINT (IF EXISTS)? name=identifier #dropConstraint
    | ALTER TABLE table=tableRef (ALTER | CHANGE) COLUMN? column=qualifiedName
        SET NOT NULL                                                          #setNotNull
    | ALTER TABLE table=tableRef (ALTER | CHANGE) COLUMN? column=qualifiedName
        SYNC IDENTITY                                                         #syncIdentity
    | ALTER TABLE table=tableRef DROP FEATURE feature=featureName
        (TRUNCATE HISTORY)?                                                   #dropFeature
    ;

// LITE / FULL, USING INVENTORY, RETAIN n HOURS and DRY RUN, in any order (as Delta Lake's grammar takes them).
vacuumModifier
    : vacuumType=(LITE | FULL)
    | USING INVENTORY (inventoryTable=qualifiedName | '(' inventoryQuery=predicateToken ')')
    | RETAIN number HOURS
    | DRY RUN
    ;

// A feature name may hold a dash (typeWidening-preview).
featureName
    : identifier ('-' identifier)?
    | STRING
    ;

cloneClause
    : TBLPROPERTIES '(' property (',' property)* ')'
    | LOCATION location=STRING
    ;

property
    : key=propertyKey '='? value=propertyValue
    ;

propertyKey
    : STRING
    | qualifiedName
    ;

propertyValue
    : STRING
    | number
    | identifier
    ;

zorderSpec
    : ZORDER BY '(' qualifiedName (',' qualifiedName)* ')'
    | ZORDER BY qualifiedName (',' qualifiedName)*
    ;

// The raw text of a predicate; Spark's own parser reads it.
predicateToken
    : .+?
    ;

// A table is a quoted path, a (multi-part) name, or silt.`/path`.
tableRef
    : path=STRING
    | qualifiedName
    ;

number
    : INTEGER_VALUE
    | DECIMAL_VALUE
    ;

qualifiedName
    : identifier ('.' identifier)*
    ;

identifier
    : IDENTIFIER
    | BACKQUOTED_IDENTIFIER
    | nonReserved
    ;

nonReserved
    : HISTORY | DETAIL | LIMIT | OPTIMIZE | ZORDER | FULL | REORG | APPLY | PURGE | FILES | VACUUM | RETAIN | HOURS | DRY | RUN | CHECKPOINT | RESTORE | TO | VERSION | AS | OF | TIMESTAMP
    | ALTER | ADD | CONSTRAINT | CHECK | DROP | IF | EXISTS | CHANGE | COLUMN | SET | NOT | NULL
    | LITE | CONVERT | DELTA | NO | STATISTICS | PARTITIONED | GENERATE | FOR | CREATE | OR | REPLACE | SHALLOW | DEEP
    | CLONE | TBLPROPERTIES | LOCATION | SYNC | IDENTITY | FEATURE | TRUNCATE | USING | INVENTORY
    | UPGRADE | UNIFORM | ICEBERG_COMPAT_VERSION | MSCK | REPAIR | METADATA
    ;

DESCRIBE: 'DESCRIBE';
DESC: 'DESC';
HISTORY: 'HISTORY';
DETAIL: 'DETAIL';
FILES: 'FILES';
VACUUM: 'VACUUM';
RETAIN: 'RETAIN';
HOURS: 'HOURS';
DRY: 'DRY';
RUN: 'RUN';
CHECKPOINT: 'CHECKPOINT';
RESTORE: 'RESTORE';
TO: 'TO';
VERSION: 'VERSION';
AS: 'AS';
OF: 'OF';
TIMESTAMP: 'TIMESTAMP';
LIMIT: 'LIMIT';
OPTIMIZE: 'OPTIMIZE';
WHERE: 'WHERE';
ZORDER: 'ZORDER';
FULL: 'FULL';
BY: 'BY';
REORG: 'REORG';
TABLE: 'TABLE';
APPLY: 'APPLY';
PURGE: 'PURGE';
UPGRADE: 'UPGRADE';
MSCK: 'MSCK';
REPAIR: 'REPAIR';
METADATA: 'METADATA';
UNIFORM: 'UNIFORM';
ICEBERG_COMPAT_VERSION: 'ICEBERG_COMPAT_VERSION';
ALTER: 'ALTER';
SYNC: 'SYNC';
FEATURE: 'FEATURE';
TRUNCATE: 'TRUNCATE';
IDENTITY: 'IDENTITY';
ADD: 'ADD';
CONSTRAINT: 'CONSTRAINT';
CHECK: 'CHECK';
DROP: 'DROP';
IF: 'IF';
EXISTS: 'EXISTS';
CHANGE: 'CHANGE';
COLUMN: 'COLUMN';
SET: 'SET';
NOT: 'NOT';
NULL: 'NULL';
LITE: 'LITE';
USING: 'USING';
INVENTORY: 'INVENTORY';
CONVERT: 'CONVERT';
DELTA: 'DELTA';
NO: 'NO';
STATISTICS: 'STATISTICS';
PARTITIONED: 'PARTITIONED';
GENERATE: 'GENERATE';
FOR: 'FOR';
CREATE: 'CREATE';
OR: 'OR';
REPLACE: 'REPLACE';
SHALLOW: 'SHALLOW';
DEEP: 'DEEP';
CLONE: 'CLONE';
TBLPROPERTIES: 'TBLPROPERTIES';
LOCATION: 'LOCATION';

STRING
    : '\'' ( ~('\'' | '\\') | ('\\' .) )* '\''
    | '"' ( ~('"' | '\\') | ('\\' .) )* '"'
    ;

INTEGER_VALUE
    : DIGIT+
    ;

DECIMAL_VALUE
    : DIGIT+ '.' DIGIT*
    | '.' DIGIT+
    ;

IDENTIFIER
    : (LETTER | DIGIT | '_')+
    ;

BACKQUOTED_IDENTIFIER
    : '`' ( ~'`' | '``' )* '`'
    ;

fragment DIGIT: [0-9];
fragment LETTER: [A-Z];

SIMPLE_COMMENT
    : '--' ~[\r\n]* '\r'? '\n'? -> channel(HIDDEN)
    ;

BRACKETED_COMMENT
    : '/*' .*? '*/' -> channel(HIDDEN)
    ;

WS
    : [ \r\n\t]+ -> channel(HIDDEN)
    ;

// Anything else: lets passThrough swallow statements that are not ours.
UNRECOGNIZED
    : .
    ;

# sql: expressions, functions and DDL that know the layout.
# Included by cli_test.cmake with -DPART=sql.

# ---- sql: expressions, functions and DDL that know the layout ---------------------------------------
expect_out(sql_fields_sonyflake
  "created_at  (timestamptz '1970-01-01 00:00:00+00' + ((((id >> 24) * 10) + 1409529600000) / 1000000000) * interval '1000000 seconds' + ((((id >> 24) * 10) + 1409529600000) / 1000 % 1000000) * interval '1 second' + ((((id >> 24) * 10) + 1409529600000) % 1000) * interval '1 millisecond')
unix_ms     (((id >> 24) * 10) + 1409529600000)
ticks       (id >> 24)
sequence    ((id >> 16) & 255)
worker      (id & 65535)
shard       (id % 16)
"
  sql fields --layout sonyflake --shards 16 --by worker)
expect_out(sql_fields_mysql_column
  "created_at  CAST(TIMESTAMP'1970-01-01 00:00:00' + INTERVAL (((o.order_id >> 22) + 1724505364000) DIV 1000) SECOND + INTERVAL ((((o.order_id >> 22) + 1724505364000) MOD 1000) * 1000) MICROSECOND AS DATETIME(3))
unix_ms     ((o.order_id >> 22) + 1724505364000)
ticks       (o.order_id >> 22)
datacenter  ((o.order_id >> 17) & 31)
worker      ((o.order_id >> 12) & 31)
sequence    ((o.order_id >> 5) & 127)
gene        (o.order_id & 31)
"
  sql fields --layout seed_gene --dialect mariadb --column o.order_id)
# A full 64-bit layout needs numeric on PostgreSQL; mastodon's times outlast MySQL's DATETIME.
expect_out(sql_fields_numeric
  "created_at  (timestamptz '1970-01-01 00:00:00+00' + ((mod(div(id, 65536), 281474976710656))::bigint / 1000000000) * interval '1000000 seconds' + ((mod(div(id, 65536), 281474976710656))::bigint / 1000 % 1000000) * interval '1 second' + ((mod(div(id, 65536), 281474976710656))::bigint % 1000) * interval '1 millisecond')
unix_ms     (mod(div(id, 65536), 281474976710656))::bigint
ticks       (mod(div(id, 65536), 281474976710656))::bigint
sequence    (mod(id, 65536))::bigint
"
  sql fields --layout mastodon --type numeric)
expect_out(sql_functions_postgres
  "CREATE OR REPLACE FUNCTION \"orders_created_at\"(id bigint) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS \$\$SELECT (timestamptz '1970-01-01 00:00:00+00' + (((\$1 >> 22) + 1577203200000) / 1000000000) * interval '1000000 seconds' + (((\$1 >> 22) + 1577203200000) / 1000 % 1000000) * interval '1 second' + (((\$1 >> 22) + 1577203200000) % 1000) * interval '1 millisecond')\$\$;
CREATE OR REPLACE FUNCTION \"orders_unix_ms\"(id bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS \$\$SELECT ((\$1 >> 22) + 1577203200000)\$\$;
CREATE OR REPLACE FUNCTION \"orders_ticks\"(id bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS \$\$SELECT (\$1 >> 22)\$\$;
CREATE OR REPLACE FUNCTION \"orders_worker\"(id bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS \$\$SELECT ((\$1 >> 12) & 1023)\$\$;
CREATE OR REPLACE FUNCTION \"orders_sequence\"(id bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS \$\$SELECT (\$1 & 4095)\$\$;
"
  sql functions --layout cosid --prefix orders_)
expect_out(sql_partitions_postgres
  "CREATE TABLE \"orders\" (\"id\" bigint NOT NULL PRIMARY KEY)
PARTITION BY RANGE (\"id\");
CREATE TABLE \"orders_202601\" PARTITION OF \"orders\" FOR VALUES FROM (2006515713438646272) TO (2017749737272246272);
CREATE TABLE \"orders_202602\" PARTITION OF \"orders\" FOR VALUES FROM (2017749737272246272) TO (2027896597509046272);
"
  sql partitions --table orders --from 2026-01-01 --to 2026-03-01)
expect_out(sql_partitions_mysql_days
  "CREATE TABLE `orders` (`id` BIGINT NOT NULL PRIMARY KEY, `total` DECIMAL(10,2))
PARTITION BY RANGE (`id`) (
  PARTITION `p20261231` VALUES LESS THAN (2138787284382646272),
  PARTITION `p20270101` VALUES LESS THAN (2139149672248246272)
);
"
  sql partitions --dialect mysql --table orders --from 2026-12-31 --to 2027-01-02 --every day
      --columns "`id` BIGINT NOT NULL PRIMARY KEY, `total` DECIMAL(10,2)")
expect_out(sql_shards_mysql
  "CREATE TABLE `app`.`orders` (`id` BIGINT NOT NULL PRIMARY KEY)
PARTITION BY HASH (`id`) PARTITIONS 4;
"
  sql shards --layout seed_gene --dialect mysql --table app.orders --shards 4)
expect_out(sql_shards_postgres_worker
  "CREATE TABLE \"orders\" (\"id\" bigint NOT NULL)
PARTITION BY LIST ((((\"id\" >> 12) & 31) % 2));
CREATE TABLE \"orders_0\" PARTITION OF \"orders\" FOR VALUES IN (0);
CREATE TABLE \"orders_1\" PARTITION OF \"orders\" FOR VALUES IN (1);
"
  sql shards --table orders --shards 2 --by worker)
# Bit 63 set: the message names the option that takes a wider column type.
expect_bad(sql_signed_full_layout " sql: layout discord's IDs reach 18446744073709551615, past a signed BIGINT's 9223372036854775807 \\(the layout uses bit 63\\); pass --type numeric \\(numeric\\(20,0\\)\\)\n$"
           sql fields --layout discord)
expect_bad(sql_mysql_full_layout "; pass --type unsigned \\(BIGINT UNSIGNED\\)\n$"
           sql fields --layout discord --dialect mysql --type bigint)
expect_bad(sql_postgres_unsigned "postgres has no unsigned bigint" sql fields --type unsigned)
expect_bad(sql_gene_shards "shard count 12 cannot be honoured by a 5-bit gene: it must be a power of two in \\[1, 32\\]" sql shards --layout seed_gene --table orders --shards 12)
expect_bad(sql_no_gene "shard by gene: the layout has no gene field; route by worker or hash" sql shards --table orders --shards 4)
expect_bad(sql_bad_table "table \"or-ders\" has '-' at index 2" sql partitions --table or-ders --from 2026-01-01 --to 2026-02-01)
expect_bad(sql_long_table "partition \"a+_202601\" is 67 characters long; postgres allows at most 63" sql partitions --table aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa --from 2026-01-01 --to 2026-02-01)
expect_bad(sql_bad_from "sql: --from 'x' is neither a UTC time" sql partitions --table orders --from x --to 2026-02-01)
expect_bad(sql_no_table "sql partitions: give --table" sql partitions --from 2026-01-01 --to 2026-02-01)
expect_bad(sql_bad_period "--every 'week' is unknown; use day, month or year" sql partitions --table orders --from 2026-01-01 --to 2026-02-01 --every week)
expect_bad(sql_bad_what "unknown SQL 'views'" sql views)

-- The fleet store's schema, version 2 (README: "Fleet profiles"), made on every server a shipper writes
-- to. ${db} is the database setting. Only ENGINE = X() ... ORDER BY ... PARTITION BY ... as ClickHouse 18.16
-- and modern servers both accept; no TTL (18.16 has none): retention drops daily partitions. Every table
-- holds the local store's columns (schema v2) after host (the origin host's host.id), day (the session's
-- start, UTC: its partition) and attempt (the shipment that wrote the row). Statements end with ';' at
-- the end of a line.
CREATE DATABASE IF NOT EXISTS ${db};

-- The schema versions hosts wrote with, and which Hyperprof they ran.
CREATE TABLE IF NOT EXISTS ${db}.schema_version (version UInt32, hyperprof_version String, host String,
    at DateTime) ENGINE = MergeTree() ORDER BY (version, host);

-- One row per shipped session, written last: a session counts once this row exists, with the attempt
-- whose rows it counts (the least, should a lost reply have let two in). Host metadata beside it.
CREATE TABLE IF NOT EXISTS ${db}.sessions (host String, day Date, attempt UInt64, shipped_at DateTime,
    schema_version UInt32, hyperprof_version String, cpu_model String, hypervisor_version String,
    kernel_version String,
    id Int64, host_id String, source String, name Nullable(String), labels Array(String), what Nullable(String),
    cpu_type Nullable(String), cpu_name Nullable(String), mhz Nullable(Int64), events Array(String),
    started_at DateTime, ended_at Nullable(DateTime), status String, end_reason Nullable(String), samples Int64,
    taken Int64, delivered Int64, lost Int64, dropped Int64, invalid Int64, received Int64, missed Int64,
    notes Array(String), study Nullable(String), hidden UInt8, time_bucket_ns Int64, profiled_ns Nullable(Int64),
    simulated_cycles Nullable(Int64), ground_truth Nullable(UInt8), xen_total Nullable(Int64),
    xen_active Nullable(Int64), xen_passive Nullable(Int64), xen_lost Nullable(Int64), xen_others Nullable(Int64),
    xen_idle Nullable(Int64), xen_invalid_buffer Nullable(Int64), xen_corrupted_buffer Nullable(Int64),
    origin Array(Int64))
    ENGINE = MergeTree() ORDER BY (host, id, attempt) PARTITION BY day;

-- Aggregated samples: a duplicate key's samples and weight are summed by merges. The names of the event,
-- domain, image and symbol ride along, so the fleet's queries need no join.
CREATE TABLE IF NOT EXISTS ${db}.samples (host String, day Date, attempt UInt64,
    session Int64, event Int32, domain Int32, vcpu Int32, cpu Int32, mode Int8, pid Int32, tid Int32,
    image Int32, symbol Int32, pc Int64, stack_id Int32, time_bucket Int64, flags Int8, samples Int64,
    weight Int64, event_name String, domain_name String, image_name String, symbol_name String)
    ENGINE = SummingMergeTree((samples, weight))
    ORDER BY (host, session, attempt, event, mode, domain, image, symbol, vcpu, cpu, pid, tid, pc, stack_id,
        time_bucket, flags)
    PARTITION BY day;

-- The samples summed by what the fleet's questions group by (top, diff, export), per committed shipment:
-- a few hundred rows a session where samples holds thousands, so hp:fleet top reads 1/30th of the rows.
-- Filled by the materialized view below from every block inserted into samples on this server, so the
-- shipper writes nothing more and a retry's partial rows are told apart by their attempt as in samples.
-- New in version 2: sessions shipped by version 1 (schema_version 1 in sessions) have no rows here and
-- are read from samples.
CREATE TABLE IF NOT EXISTS ${db}.symbol_samples (host String, day Date, attempt UInt64, session Int64,
    event Int32, mode Int8, domain_name String, image_name String, symbol_name String, event_name String,
    samples Int64, weight Int64)
    ENGINE = SummingMergeTree((samples, weight))
    ORDER BY (host, session, attempt, event, mode, domain_name, image_name, symbol_name)
    PARTITION BY day;

CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.symbol_samples_feed TO ${db}.symbol_samples AS
    SELECT host, day, attempt, session, event, mode, domain_name, image_name, symbol_name,
        any(event_name) AS event_name, sum(samples) AS samples, sum(weight) AS weight
    FROM ${db}.samples
    GROUP BY host, day, attempt, session, event, mode, domain_name, image_name, symbol_name;

CREATE TABLE IF NOT EXISTS ${db}.stacks (host String, day Date, attempt UInt64,
    session Int64, stack_id Int32, depth Int32, pc Int64, image Int32, symbol Int32, mode Int8)
    ENGINE = MergeTree() ORDER BY (host, session, attempt, stack_id, depth) PARTITION BY day;

CREATE TABLE IF NOT EXISTS ${db}.names (host String, day Date, attempt UInt64,
    session Int64, kind String, id Int64, owner Int32, name String, detail Nullable(String),
    address Nullable(Int64))
    ENGINE = MergeTree() ORDER BY (host, session, attempt, kind, id) PARTITION BY day;

CREATE TABLE IF NOT EXISTS ${db}.truth (host String, day Date, attempt UInt64,
    session Int64, on_behalf UInt8, domain Int32, vcpu Int32, mode Int8, image String, image_kind String,
    symbol String, signal String, milli Int64)
    ENGINE = MergeTree() ORDER BY (host, session, attempt) PARTITION BY day;

CREATE TABLE IF NOT EXISTS ${db}.counters (host String, day Date, attempt UInt64,
    session Int64, slot Int32, counter Int32, event String, code Int32, description Nullable(String),
    signal Nullable(String), counter_mask Int64, minimum_count Int64, count Int64, unit_mask Int64,
    count_kernel UInt8, count_user UInt8)
    ENGINE = MergeTree() ORDER BY (host, session, attempt, slot) PARTITION BY day;

CREATE TABLE IF NOT EXISTS ${db}.buffers (host String, day Date, attempt UInt64,
    session Int64, position Int32, domain Int32, vcpu Int32, role String, taken Int64, delivered Int64,
    lost Int64, dropped Int64, invalid Int64, user_samples Int64, kernel_samples Int64, xen_samples Int64,
    drained Int64, undrained Int64)
    ENGINE = MergeTree() ORDER BY (host, session, attempt, position) PARTITION BY day;

CREATE TABLE IF NOT EXISTS ${db}.consumers (host String, day Date, attempt UInt64,
    session Int64, position Int32, consumer String, received Int64, missed Int64, problem Nullable(String))
    ENGINE = MergeTree() ORDER BY (host, session, attempt, position) PARTITION BY day;

CREATE TABLE IF NOT EXISTS ${db}.host_counters (host String, day Date, attempt UInt64,
    session Int64, name String, value Int64)
    ENGINE = MergeTree() ORDER BY (host, session, attempt, name) PARTITION BY day;

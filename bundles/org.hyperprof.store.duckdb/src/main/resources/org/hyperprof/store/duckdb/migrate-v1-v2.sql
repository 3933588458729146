-- Migrates a version 1 store to version 2, in one transaction with the check of its version.
-- Statements end with ';' at the end of a line.
ALTER TABLE sessions ADD COLUMN profiled_ns BIGINT;
ALTER TABLE sessions ADD COLUMN simulated_cycles BIGINT;
ALTER TABLE sessions ADD COLUMN ground_truth BOOLEAN;
ALTER TABLE sessions ADD COLUMN xen_total BIGINT;
ALTER TABLE sessions ADD COLUMN xen_active BIGINT;
ALTER TABLE sessions ADD COLUMN xen_passive BIGINT;
ALTER TABLE sessions ADD COLUMN xen_lost BIGINT;
ALTER TABLE sessions ADD COLUMN xen_others BIGINT;
ALTER TABLE sessions ADD COLUMN xen_idle BIGINT;
ALTER TABLE sessions ADD COLUMN xen_invalid_buffer BIGINT;
ALTER TABLE sessions ADD COLUMN xen_corrupted_buffer BIGINT;
ALTER TABLE sessions ADD COLUMN origin BIGINT[];
ALTER TABLE sessions ADD COLUMN ship_pending BOOLEAN;

-- Each counter of the session as it was configured: slot is the index samples.event refers to.
CREATE TABLE counters (
    session BIGINT NOT NULL,
    slot INTEGER NOT NULL,
    counter INTEGER NOT NULL,
    event VARCHAR NOT NULL,
    code INTEGER NOT NULL,
    description VARCHAR,
    signal VARCHAR,
    counter_mask BIGINT NOT NULL,
    minimum_count BIGINT NOT NULL,
    count BIGINT NOT NULL,
    unit_mask BIGINT NOT NULL,
    count_kernel BOOLEAN NOT NULL,
    count_user BOOLEAN NOT NULL
);

-- Each vCPU buffer's books (taken = delivered + lost + dropped + invalid), in the order the source gave.
CREATE TABLE buffers (
    session BIGINT NOT NULL,
    position INTEGER NOT NULL,
    domain INTEGER NOT NULL,
    vcpu INTEGER NOT NULL,
    role VARCHAR NOT NULL,
    taken BIGINT NOT NULL,
    delivered BIGINT NOT NULL,
    lost BIGINT NOT NULL,
    dropped BIGINT NOT NULL,
    invalid BIGINT NOT NULL,
    user_samples BIGINT NOT NULL,
    kernel_samples BIGINT NOT NULL,
    xen_samples BIGINT NOT NULL,
    drained BIGINT NOT NULL,
    undrained BIGINT NOT NULL
);

-- What each consumer of the live session received and missed (received + missed = delivered).
CREATE TABLE consumers (
    session BIGINT NOT NULL,
    position INTEGER NOT NULL,
    consumer VARCHAR NOT NULL,
    received BIGINT NOT NULL,
    missed BIGINT NOT NULL,
    problem VARCHAR
);

-- The host's named counters over the session (postponed interrupts and the like).
CREATE TABLE host_counters (
    session BIGINT NOT NULL,
    name VARCHAR NOT NULL,
    value BIGINT NOT NULL
);

-- The process writing a running session, and its last checkpoint (schema-v2.sql).
CREATE TABLE owners (
    session BIGINT NOT NULL,
    host VARCHAR NOT NULL,
    pid BIGINT NOT NULL,
    process_started_ms BIGINT NOT NULL,
    checkpoint_at TIMESTAMP
);

INSERT INTO schema_version VALUES (2);

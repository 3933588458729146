-- The session store's schema, version 3 (README: "The session store"). Statements end with ';' at
-- the end of a line. Ids of images, symbols and stacks are the session's own: a row joins names and
-- stacks on (session, id).
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (3);

-- One row per session, written when it starts (status running) and completed when it ends.
CREATE TABLE sessions (
    id BIGINT PRIMARY KEY,
    host_id VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    name VARCHAR,
    labels VARCHAR[] NOT NULL,
    what VARCHAR,
    cpu_type VARCHAR,
    cpu_name VARCHAR,
    mhz BIGINT,
    events VARCHAR[] NOT NULL,
    started_at TIMESTAMP NOT NULL,
    ended_at TIMESTAMP,
    status VARCHAR NOT NULL,
    end_reason VARCHAR,
    samples BIGINT NOT NULL,
    taken BIGINT NOT NULL,
    delivered BIGINT NOT NULL,
    lost BIGINT NOT NULL,
    dropped BIGINT NOT NULL,
    invalid BIGINT NOT NULL,
    received BIGINT NOT NULL,
    missed BIGINT NOT NULL,
    notes VARCHAR[] NOT NULL,
    study VARCHAR,
    hidden BOOLEAN NOT NULL,
    time_bucket_ns BIGINT NOT NULL,
    -- Since version 2 (columns a version 1 store gains on migration, NULL in its old rows).
    profiled_ns BIGINT,
    simulated_cycles BIGINT,
    ground_truth BOOLEAN,
    xen_total BIGINT,
    xen_active BIGINT,
    xen_passive BIGINT,
    xen_lost BIGINT,
    xen_others BIGINT,
    xen_idle BIGINT,
    xen_invalid_buffer BIGINT,
    xen_corrupted_buffer BIGINT,
    origin BIGINT[],
    ship_pending BOOLEAN,
    -- Since version 3: whether reports showed names demangled (NULL in older rows: they did).
    demangled BOOLEAN
);

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

-- Aggregated samples: one row per distinct key, with how many samples had it and their weight.
-- event: the index into sessions.events; mode: Xenoprof's (0 user, 1 kernel, 2 hypervisor);
-- -1: not known (time, CPU, pid, tid); stack_id 0: no call chain; time_bucket: the sample's time
-- divided by sessions.time_bucket_ns (-1 when the source gave none); flags: SampleBatch's;
-- comm (since version 3, -1 in older rows): the thread's comm id at the sample (names kind comm).
CREATE TABLE samples (
    session BIGINT NOT NULL,
    event INTEGER NOT NULL,
    domain INTEGER NOT NULL,
    vcpu INTEGER NOT NULL,
    cpu INTEGER NOT NULL,
    mode TINYINT NOT NULL,
    pid INTEGER NOT NULL,
    tid INTEGER NOT NULL,
    image INTEGER NOT NULL,
    symbol INTEGER NOT NULL,
    pc BIGINT NOT NULL,
    stack_id INTEGER NOT NULL,
    time_bucket BIGINT NOT NULL,
    flags TINYINT NOT NULL,
    samples BIGINT NOT NULL,
    weight BIGINT NOT NULL,
    comm INTEGER NOT NULL DEFAULT -1
);

-- A call chain's callers, innermost first (depth 0); mode -1 where the source could not tell.
CREATE TABLE stacks (
    session BIGINT NOT NULL,
    stack_id INTEGER NOT NULL,
    depth INTEGER NOT NULL,
    pc BIGINT NOT NULL,
    image INTEGER NOT NULL,
    symbol INTEGER NOT NULL,
    mode TINYINT NOT NULL
);

-- Names of the ids the rows use. kind image: owner = its domain, detail = its ImageKind;
-- kind symbol: owner = its image (an address symbol, id below -1, has its address; a named symbol
-- its start in its image's file where the source told it, since version 3, else NULL);
-- kind process: id = pid, owner = its domain; kind domain: id = domid. Since version 3:
-- kind comm: id = comm id, owner = its thread (the source's number: comms of one thread share it);
-- kind build_id: id = an image's id, owner = its domain, name = its GNU build-id in hex.
CREATE TABLE names (
    session BIGINT NOT NULL,
    kind VARCHAR NOT NULL,
    id BIGINT NOT NULL,
    owner INTEGER NOT NULL,
    name VARCHAR NOT NULL,
    detail VARCHAR,
    address BIGINT
);

-- Where images lay in the processes' address spaces (since version 3), in the order the source met
-- them (position): image joins names kind image; from start_address up to limit_address (excluded),
-- at file_offset of the image's file.
CREATE TABLE mappings (
    session BIGINT NOT NULL,
    position INTEGER NOT NULL,
    domain INTEGER NOT NULL,
    pid INTEGER NOT NULL,
    image INTEGER NOT NULL,
    start_address BIGINT NOT NULL,
    limit_address BIGINT NOT NULL,
    file_offset BIGINT NOT NULL
);

-- A simulated session's exact totals (GroundTruth), in thousandths of an event, one row per
-- signal with a total; on_behalf: the hypervisor's work charged to the guest function it served.
CREATE TABLE truth (
    session BIGINT NOT NULL,
    on_behalf BOOLEAN NOT NULL,
    domain INTEGER NOT NULL,
    vcpu INTEGER NOT NULL,
    mode TINYINT NOT NULL,
    image VARCHAR NOT NULL,
    image_kind VARCHAR NOT NULL,
    symbol VARCHAR NOT NULL,
    signal VARCHAR NOT NULL,
    milli BIGINT NOT NULL
);

-- The process writing a running session (one row while it runs, none once it ended): its host's
-- name, pid and start (epoch ms, -1 when not known), and the time of its last checkpoint (NULL
-- before the first). A store opened on that host marks the session incomplete once the process is gone.
CREATE TABLE owners (
    session BIGINT NOT NULL,
    host VARCHAR NOT NULL,
    pid BIGINT NOT NULL,
    process_started_ms BIGINT NOT NULL,
    checkpoint_at TIMESTAMP
);

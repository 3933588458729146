-- Migrates a version 1 store to version 2, in one transaction with the check of its version: the
-- columns its sessions lack here; the tables version 2 adds are made from schema-v2.sql itself.
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

INSERT INTO schema_version VALUES (2);

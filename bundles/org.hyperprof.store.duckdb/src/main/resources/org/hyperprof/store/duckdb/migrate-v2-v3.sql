-- Migrates a version 2 store to version 3, in one transaction with the check of its version: the
-- columns its tables lack here (old samples rows get comm -1: not known); the table version 3 adds
-- (mappings) is made from schema-v3.sql itself. Statements end with ';' at the end of a line.
ALTER TABLE sessions ADD COLUMN demangled BOOLEAN;
ALTER TABLE samples ADD COLUMN comm INTEGER DEFAULT -1;

INSERT INTO schema_version VALUES (3);

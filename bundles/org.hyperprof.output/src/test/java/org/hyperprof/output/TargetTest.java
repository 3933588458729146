package org.hyperprof.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * What the machine's own special files resolve to. Looked at only, never written: no test writes
 * near the real /dev (the write tests use private device nodes).
 */
class TargetTest {

    @Test
    void devStdoutIsADescriptorStreamedIntoNeverAFileToReplace() throws Exception {
        Target t = Target.resolve(Path.of("/dev/stdout"));
        assertTrue(t.kind().streamed(), t.toString());
        assertTrue(t.file().startsWith("/proc"), "written through the descriptor, not past it: " + t);
    }

    @Test
    void devNullIsACharacterDevice() throws Exception {
        Target t = Target.resolve(Path.of("/dev/null"));
        assertEquals(Target.Kind.CHARACTER_DEVICE, t.kind());
        assertEquals(Path.of("/dev/null"), t.file());
    }

    @Test
    void devFullIsACharacterDevice() throws Exception {
        assertEquals(Target.Kind.CHARACTER_DEVICE, Target.resolve(Path.of("/dev/full")).kind());
    }
}

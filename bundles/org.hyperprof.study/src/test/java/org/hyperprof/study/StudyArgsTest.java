package org.hyperprof.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.host.HostService;
import org.junit.jupiter.api.Test;

/** hp:study's command line. */
class StudyArgsTest {

    @Test
    void withoutArgumentsTheDefaultScenarioRunsEveryVariantFor200MsHere() throws Exception {
        StudyArgs a = StudyArgs.parse();
        assertEquals(HostService.DEFAULT_SCENARIO, a.scenario());
        assertNull(a.policies());
        assertEquals(200, a.ms());
        assertEquals(Path.of(""), a.out());
    }

    @Test
    void everyOptionTakesItsValueAfterABlankOrAnEqualsSign() throws Exception {
        StudyArgs a = StudyArgs.parse("--scenario", "xen-multi-domain", "--policies=lazy, offset,lazy", "--ms", "50",
                "--out=/tmp/x");
        assertEquals("xen-multi-domain", a.scenario());
        assertEquals(List.of("lazy", "offset"), a.policies());
        assertEquals(50, a.ms());
        assertEquals(Path.of("/tmp/x"), a.out());
    }

    @Test
    void badCommandLinesSayWhatIsWrong() {
        assertEquals("--ms takes a whole number of simulated milliseconds, not 'ten'",
                assertThrows(StudyArgs.UsageException.class, () -> StudyArgs.parse("--ms", "ten")).getMessage());
        assertEquals("--ms 0 is out of range: give 1 to 600000 simulated milliseconds",
                assertThrows(StudyArgs.UsageException.class, () -> StudyArgs.parse("--ms", "0")).getMessage());
        assertEquals("--out needs a value",
                assertThrows(StudyArgs.UsageException.class, () -> StudyArgs.parse("--out")).getMessage());
        assertEquals("unknown option --seconds; the options are --scenario, --policies, --ms and --out",
                assertThrows(StudyArgs.UsageException.class, () -> StudyArgs.parse("--seconds", "1")).getMessage());
        assertEquals("unexpected argument 'lazy'; options start with --",
                assertThrows(StudyArgs.UsageException.class, () -> StudyArgs.parse("lazy")).getMessage());
        assertEquals("--ms given twice",
                assertThrows(StudyArgs.UsageException.class, () -> StudyArgs.parse("--ms", "1", "--ms", "2"))
                        .getMessage());
        assertThrows(StudyArgs.UsageException.class, () -> StudyArgs.parse("--policies", " , "));
    }

    @Test
    void aScenarioFileNameBecomesASafeFileNamePart() {
        assertEquals("xen-multi-domain", StudyCommand.fileName("xen-multi-domain"));
        assertEquals("my_host", StudyCommand.fileName("/tmp/scenarios/my host.scenario"));
    }
}

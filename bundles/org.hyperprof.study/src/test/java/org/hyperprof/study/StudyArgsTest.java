package org.hyperprof.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.host.HostService;
import org.hyperprof.command.kit.UsageException;
import org.junit.jupiter.api.Test;

/** hp:study's command line. */
class StudyArgsTest {

    @Test
    void withoutArgumentsTheDefaultScenarioRunsEveryVariantFor500MsHere() throws Exception {
        StudyArgs a = StudyArgs.parse();
        assertEquals(HostService.DEFAULT_SCENARIO, a.scenario());
        assertNull(a.policies());
        assertEquals(500, a.ms(), "500 simulated ms per variant and seed by default");
        assertEquals(10, a.seeds(), "ten seeds by default");
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
        assertEquals(3, StudyArgs.parse("--seeds=3").seeds());
        assertEquals(3, StudyArgs.parse("--jobs", "3").jobs());
        assertEquals(Runtime.getRuntime().availableProcessors(), StudyArgs.parse().jobs(), "one run per processor");
        Sensitivity vary = StudyArgs.parse("--vary", "cost.trap.*=0.5,1.5").vary();
        assertEquals("cost.trap.*", vary.key());
        assertEquals(List.of(0.5, 1.5), vary.factors());
    }

    @Test
    void badCommandLinesSayWhatIsWrong() {
        assertEquals("expected --ms (simulated milliseconds per variant) as a number, got 'ten'",
                assertThrows(UsageException.class, () -> StudyArgs.parse("--ms", "ten")).getMessage());
        assertEquals("--ms (simulated milliseconds per variant) must be from 1 to 600000, got 0",
                assertThrows(UsageException.class, () -> StudyArgs.parse("--ms", "0")).getMessage());
        assertEquals("--seeds (seeds per variant) must be from 1 to 1000, got 0",
                assertThrows(UsageException.class, () -> StudyArgs.parse("--seeds", "0")).getMessage());
        assertEquals("--jobs (runs at once) must be from 1 to 256, got 0",
                assertThrows(UsageException.class, () -> StudyArgs.parse("--jobs", "0")).getMessage());
        assertEquals("--vary takes <cost>=<factor>,<factor>... with <cost> one of cost.vpmu, cost.trap.hvm,"
                + " cost.trap.pv, cost.trap.*, e.g. --vary cost.vpmu=0.5,1.5; got 'cost.nmi=2'",
                assertThrows(UsageException.class, () -> StudyArgs.parse("--vary", "cost.nmi=2")).getMessage());
        assertEquals("--vary compares conclusions over seeds; give --seeds 2 or more",
                assertThrows(UsageException.class, () -> StudyArgs.parse("--seeds", "1", "--vary", "cost.vpmu=2"))
                        .getMessage());
        assertEquals("option --out needs a value (--out dir)",
                assertThrows(UsageException.class, () -> StudyArgs.parse("--out")).getMessage());
        assertEquals("unknown option '--seconds'; options are --jobs, --ms, --out, --policies, --scenario, --seeds, --vary",
                assertThrows(UsageException.class, () -> StudyArgs.parse("--seconds", "1")).getMessage());
        assertEquals("too many arguments: lazy (expected only options; options start with --)",
                assertThrows(UsageException.class, () -> StudyArgs.parse("lazy")).getMessage());
        assertEquals("--ms is given twice (1 and 2); give it once",
                assertThrows(UsageException.class, () -> StudyArgs.parse("--ms", "1", "--ms", "2"))
                        .getMessage());
        assertThrows(UsageException.class, () -> StudyArgs.parse("--policies", " , "));
    }

    @Test
    void aScenarioFileNameBecomesASafeFileNamePart() {
        assertEquals("xen-multi-domain", StudyCommand.fileName("xen-multi-domain"));
        assertEquals("my_host", StudyCommand.fileName("/tmp/scenarios/my host.scenario"));
    }

    @Test
    void gogosHelpShowsTheArgumentsAsTheTableDoes() throws Exception {
        java.lang.reflect.Method m = StudyCommand.class.getMethod("study", String[].class);
        assertEquals(StudyArgs.SYNTAX.arguments(), m.getParameters()[0]
                .getAnnotation(org.apache.felix.service.command.Descriptor.class).value());
    }
}

package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.input.InputTooLargeException;
import org.hyperprof.api.input.NotAFileException;
import org.hyperprof.hypervisor.sim.scenario.ScenarioLimits;
import org.hyperprof.input.InputLimit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every path a scenario load reads, the scenario and the symbol files it names, is checked before it
 * is opened and read within its ceiling, through the host service that {@code hp:load},
 * {@code hp:profile --scenario} and {@code hp:study --scenario} call. A FIFO made a load hang; a
 * symbol file {@code /dev/zero} ran for 11 s, took 4.5 GB and ended in an exception without a message.
 */
class ScenarioInputsTest {

    private static final long MB = 1 << 20;

    @TempDir
    Path dir;

    private final HostServiceImpl service = Fixtures.service();

    /** A scenario file in {@link #dir} whose kernel's symbol file is {@code kernelFile}, the others next to it. */
    private Path scenario(String kernelFile, String format) throws IOException {
        Files.createDirectories(dir.resolve("symbols"));
        for (String f : List.of("xen-syms-3.0.map", "rcv22.map")) {
            try (InputStream in = getClass().getClassLoader()
                    .getResourceAsStream(HostServiceImpl.SCENARIO_FOLDER + "/symbols/" + f)) {
                Files.copy(in, dir.resolve("symbols").resolve(f));
            }
        }
        String text = Fixtures.minimal("", "domain 0 d0 type=pv vcpus=1 load=0.5 hardware=yes", "")
                .replace("symbols/vmlinux-syms-2.6.16-xen0.map", kernelFile + (format == null ? "" : " format=" + format));
        Path file = dir.resolve("mini.scenario");
        Files.writeString(file, text);
        return file;
    }

    // ---------------------------------------------------------------------------- the scenario file

    /** A valid scenario of a little more than {@code kib} KiB, padded with comment lines. */
    private Path scenarioOfKib(int kib) throws IOException {
        return Files.writeString(dir.resolve("big.scenario"), Fixtures.minimal("",
                "domain 0 d0 type=pv vcpus=1 load=0.5 hardware=yes", "") + ("#" + "x".repeat(1023) + "\n").repeat(kib));
    }

    @Test
    void aScenarioThatIsAFifoIsRefusedAtOnceNamingItAndWhatToDo() throws Exception {
        try (Fifo fifo = new Fifo(dir.resolve("pipe.scenario"), Fixtures.minimal("", "domain 0 d0 type=pv vcpus=1"
                + " load=0.5 hardware=yes", ""))) {
            ScenarioException e = assertThrows(ScenarioException.class, () -> service.load(fifo.path.toString(), null));
            assertEquals(fifo.path + ": is a FIFO (named pipe), not a regular file: Hyperprof reads a scenario only"
                    + " from a regular file; reading a FIFO waits for a writer and may never end: save what it carries"
                    + " in a regular file and give that", e.getMessage());
            assertInstanceOf(NotAFileException.class, e.getCause());
        }
    }

    @Test
    void aScenarioThatIsADirectoryIsRefusedNamingIt() {
        ScenarioException e = assertThrows(ScenarioException.class, () -> service.load(dir.toString(), null));
        assertEquals(dir + ": is a directory, not a regular file: Hyperprof reads a scenario only from a regular"
                + " file; give the path of the scenario in it", e.getMessage());
    }

    @Test
    void aScenarioAboveItsCeilingIsRefusedBeforeItIsRead() throws Exception {
        Path big = scenarioOfKib(2048);
        service.limits(ScenarioLimits.of(1, 256));
        ScenarioException e = assertThrows(ScenarioException.class, () -> service.load(big.toString(), null));
        assertEquals(big + ": is " + InputLimit.size(Files.size(big)) + ", more than the 1 MiB"
                + " Hyperprof reads of a scenario; check that it is the file you meant, or raise the limit"
                + " (scenario.max.mb of PID org.hyperprof.hypervisor in Configuration Admin)", e.getMessage());
        assertInstanceOf(InputTooLargeException.class, e.getCause());
    }

    // ------------------------------------------------------------------------ the files it names

    @Test
    void aSymbolFileThatIsADeviceIsRefusedBeforeAByteOfItIsRead() throws Exception {
        assumeTrue(Files.exists(Path.of("/dev/zero")));
        Path file = scenario("/dev/zero", null);
        long before = allocated();
        ScenarioException e = assertThrows(ScenarioException.class, () -> service.load(file.toString(), null));
        long allocated = allocated() - before;
        assertEquals(file + ":9: image 'vmlinux': symbol file /dev/zero: is a character device, not a regular file:"
                + " Hyperprof reads a symbol file only from a regular file; a device such as /dev/zero or a terminal"
                + " never ends: give a regular file", e.getMessage());
        assertTrue(allocated < 16 * MB, "refusing /dev/zero allocated " + allocated + " bytes");
    }

    @Test
    void aSymbolFileThatIsAFifoIsRefusedWithoutWaitingForAWriter() throws Exception {
        try (Fifo fifo = new Fifo(dir.resolve("System.map"), "c0100000 T tcp_v4_rcv\n")) {
            Path file = scenario(fifo.path.toString(), null);
            ScenarioException e = assertThrows(ScenarioException.class, () -> service.load(file.toString(), null));
            assertTrue(e.getMessage().startsWith(file + ":9: image 'vmlinux': symbol file " + fifo.path
                    + ": is a FIFO (named pipe), not a regular file"), e.getMessage());
        }
    }

    @Test
    void anElfSymbolFileThatIsADeviceIsRefusedByItsResolverThroughTheSameCheck() throws Exception {
        assumeTrue(Files.exists(Path.of("/dev/zero")));
        HostServiceImpl withElf = Fixtures.everyModel();
        Path file = scenario("/dev/zero", "elf");
        ScenarioException e = assertThrows(ScenarioException.class, () -> withElf.load(file.toString(), null));
        assertTrue(e.getMessage().startsWith(file + ":9: the elf symbols of image 'vmlinux' cannot be read: /dev/zero:"
                + " is a character device, not a regular file"), e.getMessage());
    }

    @Test
    void aProcfsSymbolFileThatReportsSizeZeroIsReadAsAStreamWithinTheCeiling() throws Exception {
        Path kallsyms = Path.of("/proc/kallsyms");
        assumeTrue(Files.isReadable(kallsyms) && Files.size(kallsyms) == 0);
        long length;
        try (InputStream in = Files.newInputStream(kallsyms)) {
            length = in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        assumeTrue(length > MB, "a /proc/kallsyms of more than 1 MiB");
        Path file = scenario(kallsyms.toString(), null);
        service.limits(ScenarioLimits.of(16, 1));
        ScenarioException e = assertThrows(ScenarioException.class, () -> service.load(file.toString(), null));
        assertEquals(file + ":9: image 'vmlinux': symbol file /proc/kallsyms: holds more than 1 MiB, the most"
                + " Hyperprof reads of a System.map or kallsyms file; check that it is the file you meant, or raise"
                + " the limit (symbols.max.mb of PID org.hyperprof.hypervisor in Configuration Admin)", e.getMessage());
    }

    @Test
    void theCeilingsAreSettingsOfTheHostServiceAndABadSettingKeepsTheOnesInForce() throws Exception {
        Path big = scenarioOfKib(1100);
        service.configure(configuration(1, 256));
        assertThrows(ScenarioException.class, () -> service.load(big.toString(), null));
        service.configure(configuration(0, 256)); // refused: the 1 MiB ceiling stays
        assertThrows(ScenarioException.class, () -> service.load(big.toString(), null));
        service.configure(configuration(2, 256));
        Files.createDirectories(dir.resolve("symbols"));
        for (String f : List.of("xen-syms-3.0.map", "vmlinux-syms-2.6.16-xen0.map", "rcv22.map")) {
            try (InputStream in = getClass().getClassLoader()
                    .getResourceAsStream(HostServiceImpl.SCENARIO_FOLDER + "/symbols/" + f)) {
                Files.copy(in, dir.resolve("symbols").resolve(f));
            }
        }
        Host host = service.load(big.toString(), null);
        assertEquals("mini", host.name());
    }

    private static HostConfiguration configuration(long scenarioMb, long symbolsMb) {
        return new HostConfiguration() {
            @Override
            public long scenario_max_mb() {
                return scenarioMb;
            }

            @Override
            public long symbols_max_mb() {
                return symbolsMb;
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return HostConfiguration.class;
            }
        };
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}

package org.hyperprof.hypervisor.sim;

import static org.hyperprof.hypervisor.sim.Fixtures.ONE_DOMAIN;
import static org.hyperprof.hypervisor.sim.Fixtures.minimal;
import static org.hyperprof.hypervisor.sim.Fixtures.parseError;
import static org.hyperprof.hypervisor.sim.Fixtures.scenarioFile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.ScenarioException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Messages about a scenario that do not mislead: a file may begin with a UTF-8 byte-order mark; what
 * a message echoes from the file shows its invisible characters; a System.map read without the
 * right to see kernel addresses says so, and a name the file gives only as an alias says which name
 * its address has.
 */
class ScenarioMessagesTest {

    @TempDir
    Path dir;

    private final HostServiceImpl service = Fixtures.service();

    @Test
    void aScenarioThatBeginsWithAUtf8ByteOrderMarkLoads() throws Exception {
        byte[] text = minimal("", ONE_DOMAIN, "").getBytes(StandardCharsets.UTF_8);
        byte[] withMark = new byte[text.length + 3];
        withMark[0] = (byte) 0xEF;
        withMark[1] = (byte) 0xBB;
        withMark[2] = (byte) 0xBF;
        System.arraycopy(text, 0, withMark, 3, text.length);
        Host host = service.load(scenarioFile(dir, withMark).toString(), null);
        assertEquals("mini", host.name());
    }

    @Test
    void charactersThatPrintAsNothingAreEscapedInMessages() {
        assertEquals("test.scenario:3: unknown statement 'cpu.mhz\\u200B'; expected one of",
                prefix(parseError(minimal("", ONE_DOMAIN, "").replace("cpu.mhz 1000", "cpu.mhz\u200B 1000"))));
        assertEquals("test.scenario:4: unknown statement 'cpu.count\\u00A01'; expected one of",
                prefix(parseError(minimal("", ONE_DOMAIN, "").replace("cpu.count 1", "cpu.count\u00A01"))));
        assertEquals("test.scenario:1: the file must begin with 'scenario <name>'; found '\\uFEFFscenario'",
                parseError("\uFEFF\uFEFF" + minimal("", ONE_DOMAIN, "")), "a second mark is no longer a byte-order mark");
    }

    private static String prefix(String message) {
        return message.substring(0, message.indexOf("expected one of") + "expected one of".length());
    }

    @Test
    void aSystemMapWhoseAddressesAreAllZeroSaysTheAddressesWereHidden() throws Exception {
        Path file = scenarioFile(dir, minimal("", ONE_DOMAIN, "").getBytes(StandardCharsets.UTF_8));
        Path map = dir.resolve("symbols/vmlinux-syms-2.6.16-xen0.map");
        List<String> zeroed = Files.readAllLines(map).stream().map(l -> "00000000" + l.substring(8)).toList();
        Files.write(map, zeroed);
        ScenarioException e = assertThrows(ScenarioException.class, () -> service.load(file.toString(), null));
        assertEquals(map + ": every one of its " + zeroed.size() + " addresses is 0: it was read without permission"
                + " to see kernel addresses (kernel.kptr_restrict, or a non-root reader). Read /proc/kallsyms as root"
                + " with kptr_restrict at 0 or 1, or use the kernel's System.map", e.getMessage());
        assertFalse(e.getMessage().contains("has no function"));
    }

    @Test
    void aFunctionFileNamesOnlyAsAnAliasSaysWhichNameItsAddressHas() throws Exception {
        Path file = scenarioFile(dir, minimal("", ONE_DOMAIN, "").replace("symbol tcp_v4_rcv 1", "symbol tcp_v4_rcv_alias 1")
                .getBytes(StandardCharsets.UTF_8));
        Path map = dir.resolve("symbols/vmlinux-syms-2.6.16-xen0.map");
        List<String> lines = new java.util.ArrayList<>(Files.readAllLines(map));
        String rcv = lines.stream().filter(l -> l.endsWith(" tcp_v4_rcv")).findFirst().orElseThrow();
        lines.add(rcv.replace("tcp_v4_rcv", "tcp_v4_rcv_alias"));
        Files.write(map, lines);
        ScenarioException e = assertThrows(ScenarioException.class, () -> service.load(file.toString(), null));
        assertEquals(file + ":12: function 'tcp_v4_rcv_alias' of image 'vmlinux' shares its address with"
                + " 'tcp_v4_rcv', which " + map + " names first: reports name that address 'tcp_v4_rcv', so a"
                + " workload names it so too", e.getMessage());
    }
}

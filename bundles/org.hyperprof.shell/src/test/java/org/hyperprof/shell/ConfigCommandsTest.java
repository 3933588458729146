package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.api.command.CommandFailure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.service.metatype.AttributeDefinition;

/** hp:config and the configuration folder, against a Metatype like the profiler's and a map for Configuration Admin. */
class ConfigCommandsTest {
    private static final String PROFILER = "org.hyperprof.profiler";
    private static final String ELF = "org.hyperprof.symbols.elf";

    @TempDir
    Path home;

    private final Fakes.Captured io = new Fakes.Captured();
    private final Map<String, Map<String, Object>> admin = new HashMap<>();

    /** A whole number setting with a minimum, reported as Felix's Metatype validation reports it. */
    private static Setting number(String key, int type, String dflt, long min) {
        return new Setting(key, type, 0, new String[] {dflt}, null, "the " + key,
                v -> Long.parseLong(v) < min ? "%less than minimum" : "");
    }

    private static final List<ConfigurablePid> PIDS = List.of(
            new ConfigurablePid(PROFILER, "Hyperprof profiler", PROFILER, List.of(
                    number("batch.size", AttributeDefinition.INTEGER, "4096", 1),
                    number("session.end.timeout.seconds", AttributeDefinition.INTEGER, "10", 0),
                    new Setting("mode", AttributeDefinition.STRING, 0, new String[] {"fast"},
                            new String[] {"fast", "exact"}, "the mode", v -> ""))),
            new ConfigurablePid(ELF, "Hyperprof ELF symbol resolver", ELF,
                    List.of(number("max.read.mb", AttributeDefinition.LONG, "1024", 1))));

    private final ConfigFolder.Store store = new ConfigFolder.Store() {
        @Override
        public Map<String, Object> properties(String pid) {
            return admin.get(pid);
        }

        @Override
        public void update(String pid, Map<String, Object> properties) {
            admin.put(pid, new TreeMap<>(properties));
        }

        @Override
        public void delete(String pid) {
            admin.remove(pid);
        }
    };

    private ConfigFolder folder() throws IOException {
        Path dir = home.resolve(".hyperprof/config");
        ConfigFolder.create(dir);
        return new ConfigFolder(dir, store, () -> PIDS);
    }

    private void run(ConfigFolder folder, String... words) {
        new ConfigCommands(folder, io.console).config(words);
    }

    @Test
    void theFolderIsCreatedForItsOwnerOnly() throws IOException {
        Path dir = folder().folder();
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
    }

    @Test
    void aChangeIsCheckedWrittenToThePidsFileAndApplied() throws IOException {
        ConfigFolder folder = folder();
        run(folder, PROFILER, "batch.size=8192");
        Path file = folder.folder().resolve(PROFILER + ".cfg");
        assertTrue(io.out().startsWith(PROFILER + ": batch.size=8192 (written to " + file + ", applied)"), io.out());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertTrue(Files.readString(file).contains("batch.size = 8192\n"), Files.readString(file));
        assertEquals(8192, admin.get(PROFILER).get("batch.size"), "an Integer, as the Metatype says");
        assertEquals(file.toString(), admin.get(PROFILER).get(ConfigFolder.FILE_PROPERTY));
    }

    @Test
    void anUnknownKeyIsAUsageErrorNamingTheKeysAndNothingIsWritten() throws IOException {
        ConfigFolder folder = folder();
        assertEquals(CommandFailure.USAGE, Fakes.fails(() -> run(folder, PROFILER, "batch.size=10", "batchsize=10")));
        assertTrue(io.err().contains("unknown key 'batchsize' of org.hyperprof.profiler; its keys are batch.size,"
                + " session.end.timeout.seconds, mode"), io.err());
        assertFalse(Files.exists(folder.folder().resolve(PROFILER + ".cfg")));
        assertNull(admin.get(PROFILER));
    }

    @Test
    void aValueOfTheWrongTypeIsAUsageErrorNamingTheType() throws IOException {
        ConfigFolder folder = folder();
        assertEquals(CommandFailure.USAGE, Fakes.fails(() -> run(folder, PROFILER, "batch.size=big")));
        assertTrue(io.err().startsWith("hp:config: batch.size=big: not an Integer\n"), io.err());
    }

    @Test
    void aValueOutsideTheOptionsIsAUsageErrorNamingThem() throws IOException {
        ConfigFolder folder = folder();
        assertEquals(CommandFailure.USAGE, Fakes.fails(() -> run(folder, PROFILER, "mode=slow")));
        assertTrue(io.err().startsWith("hp:config: mode=slow: not one of fast, exact\n"), io.err());
    }

    @Test
    void aValueBelowTheMetatypesMinimumIsRefused() throws IOException {
        ConfigFolder folder = folder();
        assertEquals(CommandFailure.USAGE, Fakes.fails(() -> run(folder, PROFILER, "batch.size=0")));
        assertTrue(io.err().startsWith("hp:config: batch.size=0: less than minimum (an Integer, default 4096)\n"),
                io.err());
    }

    @Test
    void anUnknownPidIsAUsageErrorNamingThePids() throws IOException {
        ConfigFolder folder = folder();
        assertEquals(CommandFailure.USAGE, Fakes.fails(() -> run(folder, "org.hyperprof.nope")));
        assertTrue(io.err().contains("no component has the pid 'org.hyperprof.nope'; configurable are "
                + PROFILER + ", " + ELF), io.err());
    }

    @Test
    void aFileTheUserWroteKeepsItsOtherLinesWhenAKeyIsChanged() throws IOException {
        ConfigFolder folder = folder();
        Path file = folder.folder().resolve(PROFILER + ".cfg");
        Files.writeString(file, "# tuned for the big host\nsession.end.timeout.seconds = 30\nbatch.size = 100\n");
        run(folder, PROFILER, "batch.size=200");
        assertEquals("# tuned for the big host\nsession.end.timeout.seconds = 30\nbatch.size = 200\n",
                Files.readString(file));
        assertEquals(Map.of("batch.size", 200, "session.end.timeout.seconds", 30, ConfigFolder.FILE_PROPERTY,
                file.toString()), admin.get(PROFILER));
    }

    @Test
    void aBadFileIsRefusedWholeWithItsNameAndTheOtherFilesApply() throws IOException {
        ConfigFolder folder = folder();
        Path bad = folder.folder().resolve(PROFILER + ".cfg");
        Path good = folder.folder().resolve(ELF + ".cfg");
        Files.writeString(bad, "batch.size = lots\nsession.end.timeout.seconds = 5\n");
        Files.writeString(good, "max.read.mb = 64\n");
        folder.install(bad.toFile());
        folder.install(good.toFile());
        assertNull(admin.get(PROFILER), "nothing of the bad file is applied");
        assertEquals(64L, admin.get(ELF).get("max.read.mb"));
        assertEquals("batch.size=lots: not an Integer", folder.refusal(PROFILER).orElseThrow());

        run(folder);
        assertTrue(io.out().contains(PROFILER + ".cfg (not applied: batch.size=lots: not an Integer)"), io.out());
    }

    @Test
    void anUnreadableFileIsRefusedWithTheReason() throws IOException {
        ConfigFolder folder = folder();
        Path bad = folder.folder().resolve(PROFILER + ".cfg");
        Files.writeString(bad, "batch.size = \\uZZZZ\n", StandardCharsets.ISO_8859_1);
        folder.install(bad.toFile());
        assertNull(admin.get(PROFILER));
        assertTrue(folder.refusal(PROFILER).orElseThrow().contains("Malformed \\uxxxx encoding"),
                folder.refusal(PROFILER).orElseThrow());
    }

    @Test
    void deletingTheFileRemovesTheSettingsItMade() throws IOException {
        ConfigFolder folder = folder();
        run(folder, ELF, "max.read.mb=32");
        Path file = folder.folder().resolve(ELF + ".cfg");
        Files.delete(file);
        folder.uninstall(file.toFile());
        assertNull(admin.get(ELF));
    }

    @Test
    void onlyCfgFilesDirectlyInTheFolderAreTaken() throws IOException {
        ConfigFolder folder = folder();
        assertTrue(folder.canHandle(folder.folder().resolve(PROFILER + ".cfg").toFile()));
        assertFalse(folder.canHandle(folder.folder().resolve("plugin.jar").toFile()));
        assertFalse(folder.canHandle(folder.folder().resolve("sub/" + PROFILER + ".cfg").toFile()));
        assertFalse(folder.canHandle(home.resolve(PROFILER + ".cfg").toFile()));
    }

    @Test
    void theListingNamesEachPidItsBundleAndItsFile() throws IOException {
        ConfigFolder folder = folder();
        Files.writeString(folder.folder().resolve(ELF + ".cfg"), "max.read.mb = 64\n");
        run(folder, "--format", "csv");
        assertEquals("pid,name,bundle,file\n"
                + PROFILER + ",Hyperprof profiler," + PROFILER + ",-\n"
                + ELF + ",Hyperprof ELF symbol resolver," + ELF + "," + ELF + ".cfg\n", io.out());
    }

    @Test
    void aPidShowsEachSettingWithTypeDefaultValueAndWhereItComesFrom() throws IOException {
        ConfigFolder folder = folder();
        run(folder, PROFILER, "batch.size=512");
        io.outBytes.reset();
        run(folder, PROFILER, "--format", "json");
        String json = io.out();
        assertTrue(json.contains("{\"key\": \"batch.size\", \"type\": \"Integer\", \"default\": \"4096\", \"value\":"
                + " \"512\", \"from\": \"" + PROFILER + ".cfg\", \"description\": \"the batch.size\"}"), json);
        assertTrue(json.contains("{\"key\": \"mode\", \"type\": \"String\", \"default\": \"fast\", \"value\":"
                + " \"fast\", \"from\": \"default\""), json);
    }

    @Test
    void aValueWithCharactersThePropertiesSyntaxReadsItselfIsWrittenSoItReadsBackTheSame() {
        String value = " C:\\tmp\\x = #1\u00e9";
        ConfigFile file = ConfigFile.parse("# kept\n").with(Map.of("output.path", value));
        assertEquals(Map.of("output.path", value), ConfigFile.parse(file.text()).values());
        assertTrue(file.text().startsWith("# kept\n"), file.text());
    }
}

package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.profiler.Profiler;
import org.junit.After;
import org.junit.Test;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Configuration that changes while commands run, and configuration from the folder: the hp: commands
 * stay registered through fifty changes of the profiler's configuration, a file dropped into the
 * configuration folder reaches the profiler, a bad one is refused by name, and hp:config writes and
 * applies a change.
 */
public class ConfigurationChangeIT extends InFramework {
    private static final String FOLDER = "hyperprof.config.dir";
    private static final String PID = "org.hyperprof.profiler";
    /** The profiler's batch size when nothing is configured (its metatype's default). */
    private static final int DEFAULT_BATCH_SIZE = 4096;

    public ConfigurationChangeIT() {
        super("opreport", "metatype", "fileinstall", "gogo", "shell");
    }

    @Override
    @Configuration
    public Option[] config() {
        Path folder;
        try {
            folder = Files.createTempDirectory("hyperprof-config-it").resolve("config");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        List<Option> all = new ArrayList<>(List.of(super.config()));
        all.add(systemProperty(FOLDER).value(folder.toString()));
        return all.toArray(Option[]::new);
    }

    /** The output of one command line, or the failure it threw (its message, e.g. "Command not found: ..."). */
    private static String run(CommandProcessor processor, String line) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (CommandSession session = processor.createSession(new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(out, true, StandardCharsets.UTF_8))) {
            session.execute(line);
            return out.toString(StandardCharsets.UTF_8);
        } catch (Exception e) {
            throw new AssertionError(line + " failed: " + e + "\n" + out.toString(StandardCharsets.UTF_8), e);
        }
    }

    /** The setting as the profiler's service shows it now, or null while there is no profiler. */
    private Object setting(String key) {
        ServiceReference<Profiler> profiler = context.getServiceReference(Profiler.class);
        return profiler == null ? null : profiler.getProperty(key);
    }

    /** Waits (a bounded wait, not a timed assertion) until the profiler's service shows the setting. */
    private void awaitSetting(String key, int value) throws InterruptedException {
        for (int i = 0; i < 600 && !Integer.valueOf(value).equals(setting(key)); i++) {
            Thread.sleep(20);
        }
        assertEquals(value, setting(key));
    }

    /**
     * Each test starts from no file in the folder and no profiler configuration: a file a test left
     * would be applied again by the folder's watcher over the other test's changes.
     */
    @After
    public void removeTheFilesAndTheConfiguration() throws Exception {
        try (java.util.stream.Stream<Path> files = Files.list(Path.of(context.getProperty(FOLDER)))) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
        }
        ConfigurationAdmin cm = Services.await(context, ConfigurationAdmin.class, "");
        org.osgi.service.cm.Configuration[] left = cm.listConfigurations("(service.pid=" + PID + ")");
        if (left != null) {
            for (org.osgi.service.cm.Configuration c : left) {
                c.delete();
            }
        }
        // Until the profiler shows its default batch size again (the component's properties hold its
        // configuration type's defaults when nothing is configured, so never no batch size).
        awaitSetting("batch.size", DEFAULT_BATCH_SIZE);
    }

    @Test
    public void commandsStayRegisteredThroughFiftyChangesOfTheProfilersConfiguration() throws Exception {
        CommandProcessor processor = Services.await(context, CommandProcessor.class, "");
        Services.await(context, Object.class, "(osgi.command.function=profile)");
        hosts().load(HostService.DEFAULT_SCENARIO, null);
        ConfigurationAdmin cm = Services.await(context, ConfigurationAdmin.class, "");

        CompletableFuture<Void> changes = CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < 50; i++) {
                    Dictionary<String, Object> settings = new Hashtable<>();
                    settings.put("batch.size", 200 + i);
                    cm.getConfiguration(PID, "?").update(settings);
                    awaitSetting("batch.size", 200 + i);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        int lines = 0;
        while (!changes.isDone() || lines < 3) {
            // Each throws AssertionError with Gogo's "Command not found" should a command be gone.
            run(processor, "hp:state");
            assertTrue(run(processor, "hp:profile --ms 5 --no-report").contains("samples taken"));
            lines += 2;
        }
        changes.get(60, TimeUnit.SECONDS);
        assertTrue("commands ran while the configuration changed: " + lines, lines >= 3);
    }

    @Test
    public void aFileInTheFolderReachesTheProfilerAndHpConfigChangesItForGood() throws Exception {
        CommandProcessor processor = Services.await(context, CommandProcessor.class, "");
        Services.await(context, Object.class, "(osgi.command.function=config)");
        Path folder = Path.of(context.getProperty(FOLDER));
        assertTrue("the folder is created at start: " + folder, Files.isDirectory(folder));

        // A bad file is refused by name and does not keep the good one from applying.
        Files.writeString(folder.resolve("org.hyperprof.symbols.kallsyms.cfg"), "max.file.mb = lots\n");
        Files.writeString(folder.resolve(PID + ".cfg"), "# dropped in by hand\nbatch.size = 77\n");
        awaitSetting("batch.size", 77);
        String listing = run(processor, "hp:config");
        assertTrue(listing, listing.contains(PID + ".cfg"));
        assertTrue(listing, listing.contains("org.hyperprof.symbols.kallsyms.cfg (not applied: max.file.mb=lots: not a Long)"));

        String changed = run(processor, "hp:config " + PID + " session.end.timeout.seconds=3");
        assertTrue(changed, changed.contains("written to " + folder.resolve(PID + ".cfg")));
        awaitSetting("session.end.timeout.seconds", 3);
        assertEquals("the other lines of the file stay",
                "# dropped in by hand\nbatch.size = 77\nsession.end.timeout.seconds = 3\n",
                Files.readString(folder.resolve(PID + ".cfg")));
        String shown = run(processor, "hp:config " + PID + " --format csv");
        assertTrue(shown, shown.contains("batch.size,Integer,4096,77," + PID + ".cfg,"));
    }
}

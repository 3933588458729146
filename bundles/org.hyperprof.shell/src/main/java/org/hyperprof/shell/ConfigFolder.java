package org.hyperprof.shell;

import java.io.File;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.apache.felix.fileinstall.ArtifactInstaller;
import org.hyperprof.command.kit.UsageException;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

/**
 * The configuration folder ({@code ${user.home}/.hyperprof/config}, or the framework or system
 * property {@value #FOLDER_PROPERTY}): one {@code <pid>.cfg} file per configured pid of a Hyperprof
 * component (a pid its Metatype describes), read at start
 * and watched while the framework runs, so that settings last from one run to the next.
 *
 * <p>Felix FileInstall watches the folder: this component gives it a watcher of its own (a
 * factory configuration of FileInstall, removed when the component stops), limited to
 * {@code *.cfg} files (nothing else in the folder is read, no bundle is installed from it), and is
 * the {@link ArtifactInstaller} that takes those files, ranked above FileInstall's own
 * configuration installer. Each file is checked against its pid's Metatype before it reaches
 * Configuration Admin: a file that cannot be read, names no configurable pid, or holds an unknown
 * key or a value of the wrong type is refused whole, with one warning line naming the file and
 * what is wrong, and the pid's settings stay as they were; the other files are applied. A file is
 * the whole configuration of its pid: a key removed from it goes back to its default, and a file
 * deleted takes its configuration with it.
 */
@Component(service = {ConfigFolder.class, ArtifactInstaller.class}, immediate = true,
        property = "service.ranking:Integer=100")
public final class ConfigFolder implements ArtifactInstaller {
    /** The framework or system property naming the folder ({@code launch/hyperprof}: {@code HYPERPROF_CONFIG_DIR}). */
    public static final String FOLDER_PROPERTY = "hyperprof.config.dir";
    /** Marks a configuration this folder set: the file it came from. */
    static final String FILE_PROPERTY = "hyperprof.config.file";

    private static final System.Logger LOG = System.getLogger(ConfigFolder.class.getName());
    private static final String FILEINSTALL_FACTORY_PID = "org.apache.felix.fileinstall";

    /** Why a file was refused, and the version of the file (its time of change) that was. */
    private record Refusal(String why, long modified) {
    }

    /** Where configurations are kept: Configuration Admin, or a map in tests. */
    interface Store {
        /** The pid's properties without the framework's own ({@code service.*}), or null when it has none. */
        Map<String, Object> properties(String pid) throws IOException;

        void update(String pid, Map<String, Object> properties) throws IOException;

        void delete(String pid) throws IOException;
    }

    private final Path folder;
    private final Store store;
    private final Supplier<List<ConfigurablePid>> metatype;
    /** Why a file of the folder was last refused, by file. */
    private final Map<Path, Refusal> refused = new ConcurrentHashMap<>();
    private final Configuration watcher;

    @Activate
    public ConfigFolder(BundleContext context, @Reference(name = "admin") ConfigurationAdmin admin,
            @Reference(name = "metatype") MetaTypeService metatype) throws IOException {
        this.folder = folderOf(context.getProperty(FOLDER_PROPERTY));
        this.store = new AdminStore(admin);
        this.metatype = () -> described(context, metatype);
        create(folder);
        forgetFilesGone(admin);
        // Read now, not only when FileInstall's watcher first scans: the first command line finds them applied.
        try (java.util.stream.Stream<Path> files = Files.list(folder)) {
            files.map(p -> p.toAbsolutePath().normalize()).filter(p -> canHandle(p.toFile())).sorted()
                    .forEach(this::apply);
        }
        this.watcher = admin.getFactoryConfiguration(FILEINSTALL_FACTORY_PID, "hyperprof", "?");
        Dictionary<String, Object> watch = new Hashtable<>();
        watch.put("felix.fileinstall.dir", folder.toString());
        watch.put("felix.fileinstall.filter", ".*\\" + ConfigFile.SUFFIX);
        watch.put("felix.fileinstall.subdir.mode", "skip");
        watch.put("felix.fileinstall.poll", "1000");
        watch.put("felix.fileinstall.noInitialDelay", "true");
        // Files are written by hp:config and by the user, never from Configuration Admin back.
        watch.put("felix.fileinstall.enableConfigSave", "false");
        watcher.updateIfDifferent(watch);
    }

    /** Plain Java: a folder that exists, the store, the pids. Nothing watches the folder. */
    ConfigFolder(Path folder, Store store, Supplier<List<ConfigurablePid>> metatype) {
        this.folder = folder.toAbsolutePath().normalize();
        this.store = store;
        this.metatype = metatype;
        this.watcher = null;
    }

    @Deactivate
    void deactivate() throws IOException {
        // The watcher leaves with its installer: FileInstall's own would take the files unchecked.
        watcher.delete();
    }

    /** The folder named by {@code property}, or {@code ${user.home}/.hyperprof/config}. */
    static Path folderOf(String property) {
        Path p = property == null || property.isBlank() ? Path.of(System.getProperty("user.home"), ".hyperprof", "config")
                : Path.of(property);
        return p.toAbsolutePath().normalize();
    }

    /** Creates the folder, readable by its owner only, when it is missing; an existing one is left as it is. */
    static void create(Path folder) throws IOException {
        if (Files.isDirectory(folder)) {
            return;
        }
        Files.createDirectories(folder.getParent());
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
            Files.createDirectory(folder);
        }
    }

    Path folder() {
        return folder;
    }

    /** Every pid a Metatype describes, by pid. */
    List<ConfigurablePid> pids() {
        return metatype.get();
    }

    /** @throws UsageException when no Metatype describes {@code pid}, naming the pids there are */
    ConfigurablePid pid(String pid) throws UsageException {
        List<ConfigurablePid> all = pids();
        return all.stream().filter(p -> p.pid().equals(pid)).findFirst().orElseThrow(() -> new UsageException(
                "no component has the pid '" + pid + "'; configurable are "
                        + String.join(", ", all.stream().map(ConfigurablePid::pid).toList())));
    }

    /** The pid's file in the folder, if there is one. */
    Optional<Path> fileOf(String pid) {
        Path file = ConfigFile.of(folder, pid);
        return Files.isRegularFile(file) ? Optional.of(file) : Optional.empty();
    }

    /** Why the pid's file was refused the last time it was read, if it was. */
    Optional<String> refusal(String pid) {
        return Optional.ofNullable(refused.get(ConfigFile.of(folder, pid))).map(Refusal::why);
    }

    /** The settings in force for the pid (null when none are set: the defaults apply). */
    Map<String, Object> current(String pid) throws IOException {
        return store.properties(pid);
    }

    /**
     * Writes {@code changes} into the pid's file (its other lines kept) and applies the file at once,
     * so the next command sees the settings; the watcher then finds the file as it applied it.
     *
     * @return the file written
     * @throws IllegalStateException when the file, written, is still refused (another line of it is wrong)
     */
    synchronized Path write(ConfigurablePid pid, Map<String, String> changes) throws IOException {
        Path file = ConfigFile.of(folder, pid.pid());
        ConfigFile.read(file).with(changes).write(file);
        apply(file);
        Refusal r = refused.get(file);
        if (r != null) {
            throw new IllegalStateException(file + " is written but not applied: " + r.why());
        }
        return file;
    }

    // ---------------------------------------------------------------- ArtifactInstaller (FileInstall)

    @Override
    public boolean canHandle(File artifact) {
        Path p = artifact.toPath().toAbsolutePath().normalize();
        return folder.equals(p.getParent()) && ConfigFile.pidOf(p) != null;
    }

    @Override
    public void install(File artifact) {
        apply(artifact.toPath().toAbsolutePath().normalize());
    }

    @Override
    public void update(File artifact) {
        apply(artifact.toPath().toAbsolutePath().normalize());
    }

    @Override
    public void uninstall(File artifact) {
        Path file = artifact.toPath().toAbsolutePath().normalize();
        refused.remove(file);
        String pid = ConfigFile.pidOf(file);
        try {
            Map<String, Object> now = store.properties(pid);
            if (now != null && file.toString().equals(now.get(FILE_PROPERTY))) {
                store.delete(pid);
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "configuration file " + file + " was deleted, but the settings of "
                    + pid + " could not be removed: " + e.getMessage());
        }
    }

    /**
     * Checks the file against its pid's Metatype and hands it to Configuration Admin when it differs
     * from what is set; never throws (FileInstall would print a stack trace): a refusal is one warning.
     */
    synchronized void apply(Path file) {
        String pid = ConfigFile.pidOf(file);
        try {
            Map<String, Object> settings = new TreeMap<>(pid(pid).check(ConfigFile.read(file).values()));
            settings.put(FILE_PROPERTY, file.toString());
            if (!same(settings, store.properties(pid))) {
                store.update(pid, settings);
            }
            refused.remove(file);
        } catch (UsageException | IOException | IllegalArgumentException e) {
            Refusal r = new Refusal(e.getMessage(), file.toFile().lastModified());
            // Said once per version of the file: the watcher's first scan reads what the start read.
            if (!r.equals(refused.put(file, r))) {
                LOG.log(System.Logger.Level.WARNING, "configuration file " + file + " not applied: " + r.why()
                        + "; the settings of " + pid + " stay as they were");
            }
        }
    }

    /** Equal settings, arrays compared by their elements. */
    private static boolean same(Map<String, Object> a, Map<String, Object> b) {
        if (b == null || !a.keySet().equals(b.keySet())) {
            return false;
        }
        for (Map.Entry<String, Object> e : a.entrySet()) {
            if (!java.util.Objects.deepEquals(e.getValue(), b.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Configurations this folder set whose file is gone (deleted while the framework was down, with
     * a framework cache that keeps Configuration Admin's store) go too.
     */
    private void forgetFilesGone(ConfigurationAdmin admin) throws IOException {
        Configuration[] set;
        try {
            set = admin.listConfigurations("(" + FILE_PROPERTY + "=*)");
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException("a constant filter", e);
        }
        for (Configuration c : set == null ? new Configuration[0] : set) {
            Object file = c.getProperties().get(FILE_PROPERTY);
            if (file instanceof String f && !Files.exists(Path.of(f))) {
                c.delete();
            }
        }
    }

    /**
     * Every pid the Metatypes of Hyperprof's bundles and plug-ins describe (a bundle named
     * {@code org.hyperprof.*} or one importing Hyperprof's packages); the framework's own (DS,
     * FileInstall) are not Hyperprof's settings.
     */
    private static List<ConfigurablePid> described(BundleContext context, MetaTypeService metatype) {
        List<ConfigurablePid> pids = new ArrayList<>();
        for (Bundle b : context.getBundles()) {
            String imports = b.getHeaders("").get(Constants.IMPORT_PACKAGE);
            boolean hyperprofs = b.getSymbolicName() != null && b.getSymbolicName().startsWith("org.hyperprof.")
                    || imports != null && imports.contains("org.hyperprof.");
            MetaTypeInformation info = hyperprofs ? metatype.getMetaTypeInformation(b) : null;
            for (String pid : info == null ? new String[0] : info.getPids()) {
                ObjectClassDefinition ocd = info.getObjectClassDefinition(pid, null);
                AttributeDefinition[] ads = ocd.getAttributeDefinitions(ObjectClassDefinition.ALL);
                List<Setting> settings = new ArrayList<>();
                for (AttributeDefinition ad : ads == null ? new AttributeDefinition[0] : ads) {
                    settings.add(Setting.of(ad));
                }
                pids.add(new ConfigurablePid(pid, ocd.getName(), b.getSymbolicName(), settings));
            }
        }
        pids.sort(Comparator.comparing(ConfigurablePid::pid));
        return Collections.unmodifiableList(pids);
    }

    /** Configuration Admin, each pid's one configuration bound to whichever bundle uses it ("?"). */
    private record AdminStore(ConfigurationAdmin admin) implements Store {
        @Override
        public Map<String, Object> properties(String pid) throws IOException {
            Configuration[] found;
            try {
                found = admin.listConfigurations("(service.pid=" + pid + ")");
            } catch (InvalidSyntaxException e) {
                throw new IllegalArgumentException("'" + pid + "' cannot be a pid", e);
            }
            if (found == null || found[0].getProperties() == null) {
                return null;
            }
            Map<String, Object> props = new TreeMap<>();
            Dictionary<String, Object> d = found[0].getProperties();
            for (String key : Collections.list(d.keys())) {
                if (!key.startsWith("service.")) {
                    props.put(key, d.get(key));
                }
            }
            return props;
        }

        @Override
        public void update(String pid, Map<String, Object> properties) throws IOException {
            admin.getConfiguration(pid, "?").update(new Hashtable<>(properties));
        }

        @Override
        public void delete(String pid) throws IOException {
            admin.getConfiguration(pid, "?").delete();
        }
    }
}

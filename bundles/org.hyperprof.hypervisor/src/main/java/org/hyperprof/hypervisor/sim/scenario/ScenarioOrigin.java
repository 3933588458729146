package org.hyperprof.hypervisor.sim.scenario;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Objects;

import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.input.InputFile;
import org.hyperprof.input.SymbolFiles;

/**
 * Where a scenario file comes from, and where the files it names by relative path are: next to it
 * (the resource folder of an embedded scenario, the directory of a scenario file). A file named by
 * an absolute path (a real {@code vmlinux} or {@code xen-syms} under {@code /usr/lib/debug}, say)
 * is read from the file system whatever the scenario's origin.
 *
 * <p>Every file of the file system, the scenario and the files it names, is opened through
 * {@link InputFile}: a path that names a directory, FIFO, device or socket is refused before it is
 * opened.
 */
public abstract class ScenarioOrigin {

    private ScenarioOrigin() {
    }

    /** The scenario file, for messages ({@code file:line}). */
    public abstract String location();

    /** Opens the scenario file itself. */
    public abstract InputStream open() throws IOException;

    /** The location of a file the scenario names, for messages. */
    public abstract String neighbourLocation(String name);

    /** Opens a file the scenario names (a symbol file). */
    public abstract ImageSource.Content neighbour(String name);

    /** The file system path of a file the scenario names, or null when it names a resource. */
    public abstract Path neighbourFile(String name);

    /** An embedded scenario: a resource {@code folder/fileName} of {@code loader}. */
    public static ScenarioOrigin embedded(ClassLoader loader, String folder, String fileName) {
        Objects.requireNonNull(loader, "loader");
        String base = folder.endsWith("/") ? folder : folder + "/";
        return new ScenarioOrigin() {
            @Override
            public String location() {
                return base + fileName;
            }

            @Override
            public InputStream open() throws IOException {
                return openResource(loader, base + fileName);
            }

            @Override
            public String neighbourLocation(String name) {
                Path absolute = absolute(name);
                return absolute != null ? absolute.toString() : base + name;
            }

            @Override
            public ImageSource.Content neighbour(String name) {
                Path absolute = absolute(name);
                if (absolute != null) {
                    return SymbolFiles.content(absolute);
                }
                String resource = base + name;
                return () -> openResource(loader, resource);
            }

            @Override
            public Path neighbourFile(String name) {
                return absolute(name);
            }
        };
    }

    /** A scenario file on disk. */
    public static ScenarioOrigin file(Path file) {
        Path absolute = file.toAbsolutePath().normalize();
        Path dir = absolute.getParent();
        return new ScenarioOrigin() {
            @Override
            public String location() {
                return absolute.toString();
            }

            @Override
            public InputStream open() throws IOException {
                return InputFile.open(absolute, "scenario");
            }

            @Override
            public String neighbourLocation(String name) {
                return dir.resolve(name).normalize().toString();
            }

            @Override
            public ImageSource.Content neighbour(String name) {
                return SymbolFiles.content(dir.resolve(name).normalize());
            }

            @Override
            public Path neighbourFile(String name) {
                return dir.resolve(name).normalize();
            }
        };
    }

    /**
     * A scenario held in memory (tests, generated scenarios), reported as {@code location}; the files
     * it names are resources of {@code loader} in {@code folder}.
     */
    public static ScenarioOrigin text(String location, String content, ClassLoader loader, String folder) {
        ScenarioOrigin resources = embedded(loader, folder, location);
        return new ScenarioOrigin() {
            @Override
            public String location() {
                return location;
            }

            @Override
            public InputStream open() {
                return new java.io.ByteArrayInputStream(content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }

            @Override
            public String neighbourLocation(String name) {
                return resources.neighbourLocation(name);
            }

            @Override
            public ImageSource.Content neighbour(String name) {
                return resources.neighbour(name);
            }

            @Override
            public Path neighbourFile(String name) {
                return resources.neighbourFile(name);
            }
        };
    }

    /** The file system path of a name given as an absolute path, or null for a relative name. */
    private static Path absolute(String name) {
        try {
            Path p = Path.of(name);
            return p.isAbsolute() ? p.normalize() : null;
        } catch (java.nio.file.InvalidPathException e) {
            return null;
        }
    }

    private static InputStream openResource(ClassLoader loader, String resource) throws IOException {
        InputStream in = loader.getResourceAsStream(resource);
        if (in == null) {
            throw new FileNotFoundException("resource " + resource + " is not in the bundle");
        }
        return in;
    }
}

package org.hyperprof.hypervisor.sim.scenario;

import static org.hyperprof.hypervisor.sim.scenario.ScenarioParser.SYMBOL_FORMAT;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.input.InputFileException;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.pipeline.SymbolTables;

/**
 * The images a scenario loads ({@code hypervisor}, {@code kernel}, {@code module}, {@code process}
 * lines): the address range, the symbol file beside the scenario, read in the built-in format or by
 * the installed resolver of its {@code format=}, and the functions workloads name in them.
 */
final class ImageReader {
    private final ScenarioOrigin origin;
    private final String location;
    private final ScenarioLimits limits;
    /** Resolvers of the symbol formats other than the built-in one, and the tables they read. */
    private final SymbolTables symbolTables;
    private final ScenarioTokens tokens;

    ImageReader(ScenarioOrigin origin, ScenarioLimits limits, SymbolTables symbolTables, ScenarioTokens tokens) {
        this.origin = origin;
        this.location = origin.location();
        this.limits = limits;
        this.symbolTables = symbolTables;
        this.tokens = tokens;
    }

    ImageSpec image(String[] t, ImageKind kind, int line, String keyword) throws ScenarioException {
        String expected = keyword + " <image> <start>-<end> <symbol file> [bias=<address>] [format=<symbol format>]";
        if (t.length < 4 || t.length > 6) {
            throw tokens.error(line, "expected '" + expected + "'");
        }
        String[] range = t[2].split("-", -1);
        if (range.length != 2) {
            throw tokens.error(line, "'" + t[2] + "' is not an address range; expected <start>-<end>, e.g."
                    + " 0xc0100000-0xc0400000");
        }
        long start = tokens.address(range[0], line);
        long end = tokens.address(range[1], line);
        if (Long.compareUnsigned(start, end) >= 0) {
            throw tokens.error(line, "the range " + t[2] + " is empty; the end must lie above the start");
        }
        Map<String, String> attrs = tokens.attributes(t, 4, line, expected, Set.of("bias", "format"));
        long bias = attrs.containsKey("bias") ? tokens.address(attrs.get("bias"), line) : 0;
        String format = attrs.getOrDefault("format", SYMBOL_FORMAT);
        String file = expand(t[3], line);
        String fileLocation = origin.neighbourLocation(file);
        Path onDisk = origin.neighbourFile(file);
        ImageSource.Content content = origin.neighbour(file);
        ImageSource source;
        SymbolFile symbols;
        if (format.equals(SYMBOL_FORMAT)) {
            source = new ImageSource(t[1], SYMBOL_FORMAT, fileLocation, content);
            try {
                symbols = SymbolFile.read(source, end - bias, limits.symbolFiles());
            } catch (InputFileException e) {
                throw new ScenarioException(location + ":" + line + ": image '" + t[1] + "': symbol file "
                        + e.getMessage(), e);
            } catch (IOException e) {
                missingFile(t, file, onDisk, line, e);
                throw tokens.error(line, "cannot read symbol file " + source.location() + " of image '" + t[1] + "': "
                        + e.getMessage() + " (symbol files are named relative to the scenario, or by an absolute"
                        + " path)");
            }
        } else {
            SymbolResolver resolver = symbolTables.resolver(format);
            if (resolver == null) {
                throw noResolver(line, t[1], format);
            }
            // The resolver is handed the image in its own format: the profiler looks the same name up later.
            source = new ImageSource(t[1], resolver.format(), fileLocation, content);
            SymbolTable table;
            try {
                table = symbolTables.table(format, source);
            } catch (SymbolTables.NoResolverException e) {
                throw noResolver(line, t[1], format); // it departed meanwhile
            } catch (SymbolFileException e) {
                missingFile(t, file, onDisk, line, e);
                throw new ScenarioException(location + ":" + line + ": the " + format + " symbols of image '" + t[1]
                        + "' cannot be read: " + e.getMessage(), e);
            }
            if (table == null || table.size() == 0) {
                throw tokens.error(line, "the " + format + " symbols of image '" + t[1] + "' (" + fileLocation
                        + ") hold no function; a workload needs the functions it names");
            }
            symbols = SymbolFile.of(fileLocation, table);
        }
        return new ImageSpec(t[1], kind, start, end, bias, source, symbols, line);
    }

    private ScenarioException noResolver(int line, String image, String format) {
        List<String> installed = new ArrayList<>();
        installed.add(SYMBOL_FORMAT + " (built in)");
        installed.addAll(symbolTables.formats());
        return tokens.error(line, "image '" + image + "' has symbol format '" + format + "', but no symbol resolver"
                + " for '" + format + "' is installed; installed formats: " + String.join(", ", installed) + ". Install"
                + " and start the bundle that reads '" + format + "' symbols, or give the image a System.map (format="
                + SYMBOL_FORMAT + ")");
    }

    /**
     * When reading an image's file failed because the file on disk is not there, says so plainly:
     * the scenario names a real file of the machine, which this machine lacks.
     */
    private void missingFile(String[] t, String file, Path onDisk, int line, Exception cause)
            throws ScenarioException {
        if (onDisk == null || Files.isRegularFile(onDisk) || !notFound(cause)) {
            return;
        }
        throw new ScenarioException(location + ":" + line + ": image '" + t[1] + "' names the file " + onDisk
                + (file.equals(t[3]) ? "" : " (written " + t[3] + ")") + ", which does not exist on this machine"
                + (Files.isDirectory(onDisk) ? " as a file (it is a directory)" : "") + "; the scenario needs that"
                + " file: install it, or change the path", cause);
    }

    /** Whether reading failed because a file was not there (somewhere in the causes). */
    private static boolean notFound(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof java.nio.file.NoSuchFileException || c instanceof java.io.FileNotFoundException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Expands {@code ${java.home}} (the running JDK's home) and {@code ${sys:NAME}} (the Java system
     * property NAME) in an image's file name, so that a scenario can name real files of the machine
     * it runs on.
     */
    private String expand(String name, int line) throws ScenarioException {
        int open = name.indexOf("${");
        if (open < 0) {
            return name;
        }
        StringBuilder out = new StringBuilder();
        int from = 0;
        while (open >= 0) {
            int close = name.indexOf('}', open + 2);
            if (close < 0) {
                throw tokens.error(line, "'" + name + "' opens '${' without a closing '}'; write ${java.home} or"
                        + " ${sys:<system property>}");
            }
            String variable = name.substring(open + 2, close);
            String property;
            if (variable.equals("java.home")) {
                property = "java.home";
            } else if (variable.startsWith("sys:") && variable.length() > 4) {
                property = variable.substring(4);
            } else {
                throw tokens.error(line, "unknown variable ${" + variable + "} in '" + name + "'; known:"
                        + " ${java.home} (the running JDK's home) and ${sys:<name>} (a Java system property)");
            }
            String value = System.getProperty(property);
            if (value == null) {
                throw tokens.error(line, "${" + variable + "} in '" + name + "': the system property '" + property
                        + "' is not set in this JVM; set it (-D" + property + "=...) or write the path out");
            }
            out.append(name, from, open).append(value);
            from = close + 1;
            open = name.indexOf("${", from);
        }
        return out.append(name.substring(from)).toString();
    }

    SymbolRef function(ImageSpec image, String fn, int line) throws ScenarioException {
        if (fn.isEmpty()) {
            throw tokens.error(line, "a function name is empty (check the '<' of the caller chain)");
        }
        int index = image.symbols().indexOf(fn);
        if (index == -2) {
            throw tokens.error(line, "function '" + fn + "' is defined more than once in "
                    + image.symbols().location() + "; a workload must name a function it can place unambiguously");
        }
        if (index < 0 && image.symbols().aliasOf(fn) >= 0) {
            String kept = image.symbols().name(image.symbols().aliasOf(fn));
            throw tokens.error(line, "function '" + fn + "' of image '" + image.name() + "' shares its address"
                    + " with '" + kept + "', which " + image.symbols().location() + " names first: reports name that"
                    + " address '" + kept + "', so a workload names it so too");
        }
        if (index < 0) {
            List<String> similar = image.symbols().similar(fn);
            throw tokens.error(line, "image '" + image.name() + "' has no function '" + fn + "' in "
                    + image.symbols().location() + (similar.isEmpty() ? "" : "; similar: " + similar));
        }
        long s = image.runtimeStart(index);
        if (Long.compareUnsigned(s, image.start()) < 0 || Long.compareUnsigned(s, image.end()) >= 0) {
            throw tokens.error(line, String.format("function '%s' of %s lies at 0x%x, outside the image's range"
                    + " 0x%x-0x%x (check the range and bias)", fn, image.name(), s, image.start(), image.end()));
        }
        return new SymbolRef(image, index);
    }
}

package org.hyperprof.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.Mapping;
import org.hyperprof.shell.session.WorkingFolder;

/**
 * The passive domains' kernel images as typed: an image of a domain's memory map stays a name; any
 * other entry that names a file in the caller's working folder becomes that file's path (in the
 * resident framework the process's own folder is not the caller's, so the profiler must not
 * resolve it there); anything else stays as typed, for the profiler's refusal to quote.
 */
final class PassiveImageFiles {
    private static final List<String> LIST_OPTIONS = List.of("--passive-images=", "--domains-images=");

    private PassiveImageFiles() {
    }

    /** {@code images} with every entry that is no image of {@code host}'s domains but a file resolved. */
    static List<String> resolve(List<String> images, Host host) {
        Set<String> names = host.domains().stream().flatMap(d -> d.memoryMap().stream()).map(Mapping::image)
                .collect(Collectors.toSet());
        List<String> resolved = new ArrayList<>(images.size());
        for (String image : images) {
            resolved.add(image.isEmpty() ? image : WorkingFolder.nameOrFile(image, names));
        }
        return resolved;
    }

    /** hp:opcontrol's arguments with the entries of {@code --passive-images=a,b} (and its alias) resolved. */
    static List<String> resolveOptions(List<String> args, Host host) {
        List<String> out = new ArrayList<>(args.size());
        for (String a : args) {
            String r = a;
            for (String option : LIST_OPTIONS) {
                if (a.startsWith(option) && a.length() > option.length()) {
                    // -1: an empty entry (a domain without an image) keeps its place.
                    r = option + String.join(",", resolve(List.of(a.substring(option.length()).split(",", -1)), host));
                }
            }
            out.add(r);
        }
        return out;
    }
}

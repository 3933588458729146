package org.hyperprof.report.flamegraph;

import java.util.Locale;

import org.hyperprof.api.sample.ImageKind;

/**
 * What a flame-graph frame is, which decides its annotation in folded stacks and its colour.
 *
 * <p>Folded stacks mark a frame's kind with a suffix, as {@code stackcollapse-perf.pl --kernel}
 * marks kernel frames with {@code _[k]}: hypervisor frames end in {@code _[x]} (Xen), kernel and
 * kernel-module frames in {@code _[k]}, user frames have no suffix. Tools that do not know
 * {@code _[x]} simply show it as part of the name.
 *
 * <p>The SVG colours the three kinds of code with three distinct hue families: violet for the
 * hypervisor, orange for kernels, green for user space; domains, vCPUs, processes, the
 * whole-session frame and code no mapping covers are grey. Within a family the exact shade comes from the frame's name, so
 * the same function has the same colour everywhere and neighbours stay distinguishable.
 */
enum FrameKind {
    /** The whole session, below the domains. */
    ALL("", "all", "all samples", 0, 0, 0, 0, 78, 82),
    /** A domain: the root frame of every folded stack. */
    DOMAIN("", "dom", "domain", 205, 215, 12, 20, 70, 78),
    /** A vCPU of a domain (only with the {@code vcpus} option). */
    VCPU("", "vcpu", "vCPU", 205, 215, 8, 14, 78, 84),
    /** A process of a domain, as {@code comm (pid)} (for a source that names threads: an import). */
    PROCESS("", "proc", "process", 190, 200, 14, 22, 74, 80),
    /** Code of the hypervisor image ({@code xen-syms}). */
    HYPERVISOR("_[x]", "hyp", "hypervisor", 262, 298, 42, 62, 62, 74),
    /** Code of a kernel image or a kernel module. */
    KERNEL("_[k]", "ker", "kernel", 16, 40, 78, 92, 54, 64),
    /** Code of a user executable or shared object. */
    USER("", "usr", "user", 78, 132, 42, 58, 48, 60),
    /** A PC no mapping of the domain covers. */
    UNKNOWN("", "unk", "unknown image", 0, 0, 0, 0, 64, 72);

    /** Appended to the frame's name in folded stacks. */
    final String suffix;
    /** The SVG class that carries the kind (CSS and script read it). */
    final String cssClass;
    /** The kind in words, for hover details. */
    final String words;
    /** The ranges of hue (degrees), saturation and lightness (percent) its frames take their shades from. */
    private final Range hue;
    private final Range saturation;
    private final Range lightness;

    FrameKind(String suffix, String cssClass, String words, int hueFrom, int hueTo, int saturationFrom,
            int saturationTo, int lightnessFrom, int lightnessTo) {
        this.suffix = suffix;
        this.cssClass = cssClass;
        this.words = words;
        this.hue = new Range(hueFrom, hueTo);
        this.saturation = new Range(saturationFrom, saturationTo);
        this.lightness = new Range(lightnessFrom, lightnessTo);
    }

    /** One channel's range: a frame's value lies {@code fraction} of the way from {@code from} to {@code to}. */
    private record Range(int from, int to) {
        float at(float fraction) {
            return from + (to - from) * fraction;
        }
    }

    /** The kind of a frame in an image of kind {@code kind}; modules count as kernel code. */
    static FrameKind of(ImageKind kind) {
        if (kind == null) {
            return UNKNOWN;
        }
        return switch (kind) {
            case HYPERVISOR -> HYPERVISOR;
            case KERNEL, MODULE -> KERNEL;
            case USER -> USER;
            case UNKNOWN -> UNKNOWN;
        };
    }

    /** Whether this kind is code (hypervisor, kernel, user or unknown) rather than a grouping frame. */
    boolean isCode() {
        return this == HYPERVISOR || this == KERNEL || this == USER || this == UNKNOWN;
    }

    /** The hue (degrees) of a frame named {@code name}: always within this kind's family. */
    float hue(String name) {
        return hue.at(fraction(name, 0));
    }

    /** The fill colour of a frame named {@code name}, as {@code rgb(r,g,b)}. */
    String fill(String name) {
        float h = hue(name);
        float s = saturation.at(fraction(name, 1)) / 100f;
        float l = lightness.at(fraction(name, 2)) / 100f;
        int[] rgb = rgb(h, s, l);
        return String.format(Locale.ROOT, "rgb(%d,%d,%d)", rgb[0], rgb[1], rgb[2]);
    }

    /**
     * A stable value in [0, 1] from the name: three independent ones (channel 0, 1, 2) so that hue,
     * saturation and lightness do not move together.
     */
    private static float fraction(String name, int channel) {
        long h = 0xCBF29CE484222325L ^ channel;
        for (int i = 0; i < name.length(); i++) {
            h ^= name.charAt(i);
            h *= 0x100000001B3L;
        }
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 32;
        return (h >>> 40) / (float) (1L << 24);
    }

    /** HSL (hue in degrees, saturation and lightness in [0, 1]) to 8-bit RGB. */
    static int[] rgb(float hue, float saturation, float lightness) {
        float c = (1 - Math.abs(2 * lightness - 1)) * saturation;
        float hp = (hue % 360) / 60f;
        float x = c * (1 - Math.abs(hp % 2 - 1));
        float r;
        float g;
        float b;
        if (hp < 1) {
            r = c; g = x; b = 0;
        } else if (hp < 2) {
            r = x; g = c; b = 0;
        } else if (hp < 3) {
            r = 0; g = c; b = x;
        } else if (hp < 4) {
            r = 0; g = x; b = c;
        } else if (hp < 5) {
            r = x; g = 0; b = c;
        } else {
            r = c; g = 0; b = x;
        }
        float m = lightness - c / 2;
        return new int[] { Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255) };
    }
}

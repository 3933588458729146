package org.hyperprof.report.flamegraph;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.hyperprof.command.kit.Escaper;

/**
 * A self-contained interactive SVG flame graph: one rectangle per frame, as wide as the samples
 * under it, callers below callees, the whole session at the bottom; coloured by
 * {@linkplain FrameKind kind} (hypervisor, kernel, user); labels cut to fit; a title, the
 * session's accounting line and the legend with each kind's share. The embedded script (the
 * resource {@code flamegraph.js}) adds hover details, click to zoom and search; the style sheet
 * ({@code flamegraph.css}) uses generic font families only. Nothing outside the file is loaded.
 *
 * <p>Frames narrower than {@value #MIN_FRAME_WIDTH} px at full width are left out, as are the
 * frames above them, and the count is printed: they would add bytes but no visible ink.
 */
final class SvgFlameGraph {

    static final int WIDTH = 1200;
    static final int PADDING = 10;
    static final int FRAME_HEIGHT = 16;
    /** The top of the deepest row of frames. */
    static final int FRAMES_TOP = 92;
    static final int BOTTOM = 46;
    /** Width of one character of the 12 px monospace font, a little generous so labels never overflow. */
    static final double CHAR_WIDTH = 7.3;
    static final double MIN_FRAME_WIDTH = 0.1;

    private static final String SCRIPT = resource("flamegraph.js");
    private static final String STYLE = resource("flamegraph.css");

    /**
     * What the picture says besides the frames' places: its text lines, each frame's fill and hover
     * line, and the legend. A session's flame graph colours frames by their kind of code
     * ({@link KindLook}); a differential one by how much they changed ({@link DiffLook}).
     */
    interface Look {
        String title();

        /** The first line under the title; {@code framesLeftOut} frames were too narrow to draw. */
        String population(int framesLeftOut);

        /** The second line under the title: the books. */
        String accounting();

        String fill(FlameTree.Node node);

        /** The frame's hover line. */
        String details(FlameTree.Node node);

        /** The legend's swatches, left to right. */
        List<Swatch> legend();
    }

    /** One swatch of the legend: its class, its fill and what it stands for. */
    record Swatch(String cssClass, String fill, String text) {
    }

    private final FlameTree.Node root;
    private final int maxDepth;
    private final Look look;
    private final double scale;
    private final int height;
    private final StringBuilder out = new StringBuilder(64 * 1024);
    private int framesDrawn;
    private int framesLeftOut;

    private SvgFlameGraph(FlameTree.Node root, int maxDepth, Look look) {
        this.root = root;
        this.maxDepth = maxDepth;
        this.look = look;
        this.scale = (WIDTH - 2.0 * PADDING) / root.total;
        this.height = FRAMES_TOP + (maxDepth + 1) * FRAME_HEIGHT + BOTTOM;
    }

    /** The SVG document for {@code tree}, which {@code snapshot} was the source of. */
    static String render(FlameTree tree, StackAggregate.Snapshot snapshot) {
        return render(tree.root(), tree.maxDepth(), new KindLook(tree, snapshot));
    }

    /** The SVG document of the frames under {@code root} (settled: totals made, children in order), drawn as {@code look} says. */
    static String render(FlameTree.Node root, int maxDepth, Look look) {
        return new SvgFlameGraph(root, maxDepth, look).document();
    }

    private String document() {
        StringBuilder frames = new StringBuilder(32 * 1024);
        frame(root, 0, frames);
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
        out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"");
        attr("width", WIDTH);
        attr("height", height);
        attr("viewBox", "0 0 " + WIDTH + " " + height);
        attr("data-total", root.total);
        attr("data-left", PADDING);
        attr("data-width", WIDTH - 2 * PADDING);
        attr("data-char-width", number(CHAR_WIDTH));
        attr("data-frames", framesDrawn);
        out.append(" onload=\"hyperprofFlameGraph()\">\n");
        out.append("<title>").append(escape(look.title())).append("</title>\n");
        out.append("<style type=\"text/css\"><![CDATA[\n").append(STYLE).append("]]></style>\n");
        out.append("<script type=\"text/ecmascript\"><![CDATA[\n").append(SCRIPT).append("]]></script>\n");
        out.append("<rect class=\"background\" x=\"0\" y=\"0\" width=\"").append(WIDTH).append("\" height=\"")
                .append(height).append("\"/>\n");
        text("title", "title", WIDTH / 2.0, 24, look.title());
        text("subtitle", "subtitle", WIDTH / 2.0, 42, look.population(framesLeftOut));
        text("accounting", "subtitle", WIDTH / 2.0, 58, look.accounting());
        text("reset", "button hidden", PADDING, 80, "Reset zoom");
        legend(80);
        out.append("<text id=\"search\" class=\"button\" x=\"").append(WIDTH - PADDING)
                .append("\" y=\"80\" text-anchor=\"end\">Search</text>\n");
        out.append("<g id=\"frames\">\n").append(frames).append("</g>\n");
        text("details", "status", PADDING, height - 26, " ");
        out.append("<text id=\"matched\" class=\"status\" x=\"").append(WIDTH - PADDING).append("\" y=\"")
                .append(height - 26).append("\" text-anchor=\"end\"> </text>\n");
        out.append("</svg>\n");
        return out.toString();
    }

    /** Draws {@code node} starting at sample {@code start}, then its children side by side above it. */
    private void frame(FlameTree.Node node, long start, StringBuilder frames) {
        double width = node.total * scale;
        if (width < MIN_FRAME_WIDTH) {
            framesLeftOut += count(node);
            return;
        }
        double x = PADDING + start * scale;
        double y = FRAMES_TOP + (maxDepth - node.depth) * FRAME_HEIGHT;
        String label = node.name;
        frames.append("<g class=\"f ").append(node.kind.cssClass).append("\" data-n=\"").append(escape(label))
                .append("\" data-o=\"").append(start).append("\" data-s=\"").append(node.total)
                .append("\" data-d=\"").append(node.depth).append("\"><title>").append(escape(look.details(node)))
                .append("</title><rect x=\"").append(number(x)).append("\" y=\"").append(number(y))
                .append("\" width=\"").append(number(width)).append("\" height=\"").append(FRAME_HEIGHT - 1)
                .append("\" rx=\"2\" fill=\"").append(look.fill(node)).append("\"/><text x=\"")
                .append(number(x + 3)).append("\" y=\"").append(number(y + 11.5)).append("\">")
                .append(escape(label(label, width))).append("</text></g>\n");
        framesDrawn++;
        long childStart = start;
        for (FlameTree.Node c : node.children) {
            frame(c, childStart, frames);
            childStart += c.total;
        }
    }

    private static int count(FlameTree.Node node) {
        int n = 1;
        for (FlameTree.Node c : node.children) {
            n += count(c);
        }
        return n;
    }

    /** The label that fits {@code width} px: the name, its start and "..", or nothing (the script cuts alike). */
    static String label(String name, double width) {
        int fit = (int) Math.floor((width - 6) / CHAR_WIDTH);
        if (fit < 3) {
            return "";
        }
        if (name.length() <= fit) {
            return name;
        }
        int cut = fit - 2;
        if (Character.isHighSurrogate(name.charAt(cut - 1))) {
            cut--;
        }
        return name.substring(0, cut) + "..";
    }

    /** The legend's swatches and the help line. */
    private void legend(int y) {
        List<Swatch> swatches = look.legend();
        double x = WIDTH / 2.0 - swatches.size() * 95;
        out.append("<g id=\"legend\">\n");
        for (Swatch s : swatches) {
            out.append("<rect class=\"swatch ").append(s.cssClass()).append("\" x=\"").append(number(x))
                    .append("\" y=\"").append(y - 10).append("\" width=\"12\" height=\"12\" rx=\"2\" fill=\"")
                    .append(s.fill()).append("\"/>");
            out.append("<text class=\"legend\" x=\"").append(number(x + 16)).append("\" y=\"").append(y)
                    .append("\">").append(escape(s.text())).append("</text>\n");
            x += 190;
        }
        out.append("</g>\n");
        text("help", "help", WIDTH / 2.0, height - 8,
                "hover: details \u00b7 click: zoom \u00b7 Esc: reset \u00b7 Ctrl+F: search");
    }

    private void text(String id, String cssClass, double x, double y, String content) {
        out.append("<text id=\"").append(id).append("\" class=\"").append(cssClass).append("\" x=\"")
                .append(number(x)).append("\" y=\"").append(number(y)).append("\">").append(escape(content))
                .append("</text>\n");
    }

    private void attr(String name, Object value) {
        out.append(' ').append(name).append("=\"").append(escape(String.valueOf(value))).append('"');
    }

    /** Two decimals, without trailing zeros: enough for 1/100 px, and stable across locales. */
    static String number(double value) {
        String s = String.format(Locale.ROOT, "%.2f", value);
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        if (s.charAt(end - 1) == '.') {
            end--;
        }
        return s.substring(0, end);
    }

    /**
     * Escapes text for XML content and attribute values; characters XML 1.0 cannot carry (control
     * characters, lone surrogates, U+FFFE/U+FFFF) become U+FFFD, so any symbol name gives a
     * well-formed file.
     */
    static String escape(String s) {
        return XML.escape(s);
    }

    private static final Escaper XML = Escaper.of(Escaper.xmlTable(), "\uFFFD");

    /** A resource of this package, whole; it goes inside CDATA, so it must not close one. */
    private static String resource(String name) {
        try (InputStream in = SvgFlameGraph.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("resource " + name + " is missing from the flamegraph bundle");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (text.contains("]]>")) {
                throw new IllegalStateException("resource " + name + " contains ']]>', which would end its CDATA");
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource " + name + " of the flamegraph bundle", e);
        }
    }
}

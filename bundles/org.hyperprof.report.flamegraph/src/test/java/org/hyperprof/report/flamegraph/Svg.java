package org.hyperprof.report.flamegraph;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/** A flame-graph SVG parsed with the JDK's XML parser (which fails on anything not well-formed). */
final class Svg {
    static final String NS = "http://www.w3.org/2000/svg";

    /** One drawn frame: its {@code <g class="f ...">}, title, rectangle and label. */
    record Frame(Element g, String name, String cssClass, long start, long samples, int depth, double x, double y,
            double width, String fill, String label, String title) {

        boolean hasClass(String c) {
            return List.of(cssClass.split("\\s+")).contains(c);
        }
    }

    final Document document;
    final Element root;
    final List<Frame> frames = new ArrayList<>();

    Svg(String xml) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        DocumentBuilder builder = factory.newDocumentBuilder();
        builder.setErrorHandler(null);
        document = builder.parse(new InputSource(new StringReader(xml)));
        root = document.getDocumentElement();
        NodeList groups = document.getElementsByTagNameNS(NS, "g");
        for (int i = 0; i < groups.getLength(); i++) {
            Element g = (Element) groups.item(i);
            String cls = g.getAttribute("class");
            if (!List.of(cls.split("\\s+")).contains("f")) {
                continue;
            }
            Element rect = child(g, "rect");
            Element text = child(g, "text");
            Element title = child(g, "title");
            frames.add(new Frame(g, g.getAttribute("data-n"), cls, Long.parseLong(g.getAttribute("data-o")),
                    Long.parseLong(g.getAttribute("data-s")), Integer.parseInt(g.getAttribute("data-d")),
                    Double.parseDouble(rect.getAttribute("x")), Double.parseDouble(rect.getAttribute("y")),
                    Double.parseDouble(rect.getAttribute("width")), rect.getAttribute("fill"), text.getTextContent(),
                    title.getTextContent()));
        }
    }

    /** The widest frame named {@code name}. */
    Frame frame(String name) {
        return find(name).orElseThrow(() -> new AssertionError("no frame named " + name + " in " + names()));
    }

    Optional<Frame> find(String name) {
        return frames.stream().filter(f -> f.name().equals(name)).max((a, b) -> Long.compare(a.samples(), b.samples()));
    }

    List<String> names() {
        return frames.stream().map(Frame::name).toList();
    }

    Element byId(String id) {
        NodeList all = document.getElementsByTagNameNS(NS, "*");
        for (int i = 0; i < all.getLength(); i++) {
            Element e = (Element) all.item(i);
            if (id.equals(e.getAttribute("id"))) {
                return e;
            }
        }
        throw new AssertionError("no element with id " + id);
    }

    private static Element child(Element parent, String tag) {
        NodeList list = parent.getElementsByTagNameNS(NS, tag);
        if (list.getLength() != 1) {
            throw new AssertionError("frame " + parent.getAttribute("data-n") + " has " + list.getLength() + " <"
                    + tag + "> elements, expected 1");
        }
        return (Element) list.item(0);
    }

    /** Hue in degrees of an {@code rgb(r,g,b)} fill. */
    static double hue(String fill) {
        String[] parts = fill.replace("rgb(", "").replace(")", "").split(",");
        return hue(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()),
                Integer.parseInt(parts[2].trim()));
    }

    static double hue(int r8, int g8, int b8) {
        double r = r8 / 255.0;
        double g = g8 / 255.0;
        double b = b8 / 255.0;
        double max = Math.max(r, Math.max(g, b));
        double min = Math.min(r, Math.min(g, b));
        double c = max - min;
        if (c == 0) {
            return 0;
        }
        double h;
        if (max == r) {
            h = ((g - b) / c) % 6;
        } else if (max == g) {
            h = (b - r) / c + 2;
        } else {
            h = (r - g) / c + 4;
        }
        h *= 60;
        return h < 0 ? h + 360 : h;
    }

    static int[] rgb(String fill) {
        String[] parts = fill.replace("rgb(", "").replace(")", "").split(",");
        return new int[] { Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()),
                Integer.parseInt(parts[2].trim()) };
    }
}

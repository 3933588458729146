package org.hyperprof.shell;

import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.hyperprof.command.kit.UsageException;
import org.osgi.service.metatype.AttributeDefinition;

/**
 * One attribute of a configurable pid as its Metatype describes it: key, type, default, options,
 * description; and the one check of a value given as text (a file's line, an {@code hp:config}
 * word): the type, the options, and the bounds the Metatype's own validation holds it to.
 *
 * @param key         the property key
 * @param typeCode    the Metatype type ({@link AttributeDefinition#INTEGER}, ...)
 * @param cardinality 0 for one value, otherwise a list
 * @param defaults    the default values, or null
 * @param options     the values allowed, or null for any of the type
 * @param description what it does, or empty
 * @param validation  the Metatype's own check of a value: null or empty when it is valid
 */
record Setting(String key, int typeCode, int cardinality, String[] defaults, String[] options, String description,
        UnaryOperator<String> validation) {

    Setting {
        description = description == null ? "" : description;
    }

    /** The attribute as the Metatype service describes it. */
    static Setting of(AttributeDefinition ad) {
        return new Setting(ad.getID(), ad.getType(), ad.getCardinality(), ad.getDefaultValue(), ad.getOptionValues(),
                ad.getDescription(), ad::validate);
    }

    /** The type as a user reads it: {@code Integer}, {@code String[]} for a list. */
    String type() {
        return typeName() + (cardinality == 0 ? "" : "[]");
    }

    /** The default as text ({@code a,b} for a list), or empty. */
    String defaultText() {
        return defaults == null ? "" : String.join(",", defaults);
    }

    /** What the value may be: the options, or the type. */
    String allowed() {
        return options != null && options.length > 0 ? "one of " + String.join(", ", options)
                : (cardinality == 0 ? "a" + (typeName().matches("[AEIOU].*") ? "n " : " ") + typeName()
                        : "a comma-separated list of " + typeName());
    }

    /** The value in the form Configuration Admin keeps it: its Metatype type, an array for a list. */
    Object convert(String text) throws UsageException {
        if (cardinality == 0) {
            return checked(text, one(text.strip()));
        }
        List<String> parts = text.isBlank() ? List.of() : Arrays.stream(text.split(",", -1)).map(String::strip).toList();
        Object array = Array.newInstance(kind().type(), parts.size());
        for (int i = 0; i < parts.size(); i++) {
            Array.set(array, i, checked(parts.get(i), one(parts.get(i))));
        }
        return array;
    }

    /** Options and the Metatype's own bounds (min, max: only its validation knows them). */
    private Object checked(String text, Object value) throws UsageException {
        if (options != null && options.length > 0 && !Arrays.asList(options).contains(text.strip())) {
            throw refused(text, "not " + allowed());
        }
        String problem = validation.apply(text.strip());
        if (problem != null && !problem.isEmpty()) {
            throw refused(text, problem.replace("%", "") + " (" + allowed()
                    + (defaultText().isEmpty() ? "" : ", default " + defaultText()) + ")");
        }
        return value;
    }

    private Object one(String text) throws UsageException {
        try {
            return kind().parse().apply(text);
        } catch (NumberFormatException | ArithmeticException e) {
            throw refused(text, "not " + allowed());
        }
    }

    private UsageException refused(String text, String why) {
        return new UsageException(key() + "=" + text + ": " + why);
    }

    /** A Metatype type: its Java class, and how a value of it is read from text. */
    private record Kind(Class<?> type, Function<String, Object> parse) {
    }

    private static final Kind TEXT = new Kind(String.class, t -> t);
    private static final Map<Integer, Kind> KINDS = Map.ofEntries(
            Map.entry(AttributeDefinition.LONG, new Kind(Long.class, Long::valueOf)),
            Map.entry(AttributeDefinition.INTEGER, new Kind(Integer.class, Integer::valueOf)),
            Map.entry(AttributeDefinition.SHORT, new Kind(Short.class, Short::valueOf)),
            Map.entry(AttributeDefinition.BYTE, new Kind(Byte.class, Byte::valueOf)),
            Map.entry(AttributeDefinition.DOUBLE, new Kind(Double.class, Double::valueOf)),
            Map.entry(AttributeDefinition.FLOAT, new Kind(Float.class, Float::valueOf)),
            Map.entry(AttributeDefinition.BIGINTEGER, new Kind(BigInteger.class, BigInteger::new)),
            Map.entry(AttributeDefinition.BIGDECIMAL, new Kind(BigDecimal.class, BigDecimal::new)),
            Map.entry(AttributeDefinition.CHARACTER, new Kind(Character.class, Setting::character)),
            Map.entry(AttributeDefinition.BOOLEAN, new Kind(Boolean.class, Setting::bool)));

    private static Object character(String text) {
        if (text.length() != 1) {
            throw new NumberFormatException(text);
        }
        return text.charAt(0);
    }

    /** Only true or false: Boolean.valueOf would read a typo as false. */
    private static Object bool(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw new NumberFormatException(text);
        };
    }

    private Kind kind() {
        return KINDS.getOrDefault(typeCode, TEXT);
    }

    private String typeName() {
        return kind().type().getSimpleName();
    }
}

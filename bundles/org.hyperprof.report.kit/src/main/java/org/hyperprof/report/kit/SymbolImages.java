package org.hyperprof.report.kit;

import java.util.Arrays;

import org.hyperprof.api.sample.SessionDictionary;

/**
 * The image of every symbol of a session's dictionary, copied as the dictionary grows (a local
 * array per frame, not a service call), so that a report checks each frame (image, symbol) of a
 * batch against the dictionary: the image must be one of its images, and the symbol
 * {@link SessionDictionary#NO_SYMBOL}, or a symbol or an address symbol it has named of that image.
 *
 * <p>Not thread-safe: its owner guards it.
 */
public final class SymbolImages {
    private int[] imageOf = new int[256];
    private int known;
    /** By address symbol index ({@link SessionDictionary#addressIndex}), its image. */
    private int[] addressImageOf = new int[0];
    private int knownAddresses;

    /** Copies the symbols the dictionary has named since the last call; allocates only when it grew. */
    public void learn(SessionDictionary dictionary) {
        int count = dictionary.symbolCount();
        if (count > known) {
            if (count > imageOf.length) {
                imageOf = Arrays.copyOf(imageOf, Math.max(count, imageOf.length * 2));
            }
            for (int s = known; s < count; s++) {
                imageOf[s] = dictionary.symbolImage(s);
            }
            known = count;
        }
        int addresses = dictionary.addressCount();
        if (addresses > knownAddresses) {
            if (addresses > addressImageOf.length) {
                addressImageOf = Arrays.copyOf(addressImageOf, Math.max(addresses, addressImageOf.length * 2));
            }
            for (int a = knownAddresses; a < addresses; a++) {
                addressImageOf[a] = dictionary.symbolImage(SessionDictionary.addressSymbolOf(a));
            }
            knownAddresses = addresses;
        }
    }

    /** The number of symbols learned: ids 0 to {@code known() - 1}. */
    public int known() {
        return known;
    }

    /** Whether the dictionary, of {@code imageCount} images, holds {@code image} and {@code symbol} together. */
    public boolean holds(int image, int symbol, int imageCount) {
        if (image < 0 || image >= imageCount || symbol >= known) {
            return false;
        }
        if (SessionDictionary.isAddress(symbol)) {
            int a = SessionDictionary.addressIndex(symbol);
            return a < knownAddresses && addressImageOf[a] == image;
        }
        return symbol == SessionDictionary.NO_SYMBOL || imageOf[symbol] == image;
    }

    /**
     * Why the dictionary, of {@code imageCount} images, does not hold {@code image} and
     * {@code symbol} together, or null when it does. Allocates only for a frame it refuses.
     */
    public String misfit(int image, int symbol, int imageCount) {
        if (image < 0 || image >= imageCount) {
            return "image id " + image + " is outside the dictionary's " + imageCount + " images";
        }
        if (SessionDictionary.isAddress(symbol)) {
            int a = SessionDictionary.addressIndex(symbol);
            if (a >= knownAddresses) {
                return "symbol id " + symbol + " is outside the dictionary's " + knownAddresses + " address symbols";
            }
            return addressImageOf[a] == image ? null
                    : "address symbol " + symbol + " belongs to image " + addressImageOf[a] + ", not to image " + image;
        }
        if (symbol >= known) {
            return "symbol id " + symbol + " is outside the dictionary's " + known + " symbols";
        }
        if (symbol >= 0 && imageOf[symbol] != image) {
            return "symbol id " + symbol + " belongs to image " + imageOf[symbol] + ", not to image " + image;
        }
        return null;
    }
}

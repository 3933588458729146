package org.hyperprof.testing.sample;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionDictionary;

/** A growable in-memory dictionary, as a daemon would fill it while resolving. */
public final class TestDictionary implements SessionDictionary {

    private record Image(String name, ImageKind kind, int domain) {
    }

    private record Symbol(String name, int image) {
    }

    private record Address(int image, long address) {
    }

    private final List<Image> images = new ArrayList<>();
    private final List<Symbol> symbols = new ArrayList<>();
    private final List<Address> addresses = new ArrayList<>();
    private final java.util.Map<List<Integer>, String> processes = new java.util.HashMap<>();
    private final List<String> comms = new ArrayList<>();

    public synchronized void process(int domain, int pid, String name) {
        processes.put(List.of(domain, pid), name);
    }

    /** Adds a comm (a thread's name) and returns its id, for {@link org.hyperprof.api.sample.SampleBatch#comm}. */
    public synchronized int comm(String name) {
        comms.add(name);
        return comms.size() - 1;
    }

    @Override
    public synchronized String commName(int comm) {
        return comm >= 0 && comm < comms.size() ? comms.get(comm) : null;
    }

    @Override
    public synchronized String processName(int domain, int pid) {
        return processes.get(List.of(domain, pid));
    }

    public synchronized int image(int domain, String name, ImageKind kind) {
        images.add(new Image(name, kind, domain));
        return images.size() - 1;
    }

    public synchronized int symbol(int image, String name) {
        symbols.add(new Symbol(name, image));
        return symbols.size() - 1;
    }

    /** The address symbol of {@code address} in {@code image}, named on first use. */
    public synchronized int address(int image, long address) {
        int known = addressSymbol(image, address);
        if (known != NO_SYMBOL) {
            return known;
        }
        addresses.add(new Address(image, address));
        return SessionDictionary.addressSymbolOf(addresses.size() - 1);
    }

    @Override
    public synchronized int addressCount() {
        return addresses.size();
    }

    @Override
    public synchronized long symbolAddress(int symbol) {
        return addresses.get(SessionDictionary.addressIndex(symbol)).address();
    }

    @Override
    public synchronized int addressSymbol(int image, long address) {
        int index = addresses.indexOf(new Address(image, address));
        return index < 0 ? NO_SYMBOL : SessionDictionary.addressSymbolOf(index);
    }

    @Override
    public synchronized int imageCount() {
        return images.size();
    }

    @Override
    public synchronized String imageName(int image) {
        return images.get(image).name();
    }

    @Override
    public synchronized ImageKind imageKind(int image) {
        return images.get(image).kind();
    }

    @Override
    public synchronized int imageDomain(int image) {
        return images.get(image).domain();
    }

    @Override
    public synchronized int symbolCount() {
        return symbols.size();
    }

    @Override
    public synchronized String symbolName(int symbol) {
        return SessionDictionary.isAddress(symbol) ? String.format("0x%016x", symbolAddress(symbol))
                : symbols.get(symbol).name();
    }

    @Override
    public synchronized int symbolImage(int symbol) {
        return SessionDictionary.isAddress(symbol) ? addresses.get(SessionDictionary.addressIndex(symbol)).image()
                : symbols.get(symbol).image();
    }
}

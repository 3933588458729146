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

    private final List<Image> images = new ArrayList<>();
    private final List<Symbol> symbols = new ArrayList<>();
    private final java.util.Map<List<Integer>, String> processes = new java.util.HashMap<>();

    public synchronized void process(int domain, int pid, String name) {
        processes.put(List.of(domain, pid), name);
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
        return symbols.get(symbol).name();
    }

    @Override
    public synchronized int symbolImage(int symbol) {
        return symbols.get(symbol).image();
    }
}

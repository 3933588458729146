package org.hyperprof.source.perf;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a recording says about itself: its events, the machine (the header features HOSTNAME,
 * OSRELEASE, ARCH, NRCPUS, CPUDESC, CPUID, VERSION, TOTAL_MEM, CMDLINE, SAMPLE_TIME) and the
 * build-ids of the images it hit. Filled while the header (file mode) or the header records
 * (pipe mode) are read.
 */
final class RecordingInfo {

    /** One build-id entry: the image, the machine it belongs to and its id. */
    record BuildId(int pid, int cpumode, String filename, String id) {
    }

    final String file;
    final boolean pipe;
    final boolean bigEndian;
    final List<EventAttr> attrs = new ArrayList<>();
    final List<BuildId> buildIds = new ArrayList<>();
    /** Feature values by feature name, as text. */
    final Map<String, String> features = new LinkedHashMap<>();
    /** Features present but not read, by name. */
    final List<String> otherFeatures = new ArrayList<>();
    /** The times of the first and last sample (the SAMPLE_TIME feature), or 0 when the header does not say. */
    long firstSampleTime;
    long lastSampleTime;
    long dataOffset;
    long dataSize;
    /**
     * The COMPRESSED feature's mmap_len: the most bytes one COMPRESSED record decompresses to
     * (perf's buffer for it); 0 when the recording has no such feature.
     */
    long compressedMmapLen;

    RecordingInfo(String file, boolean pipe, boolean bigEndian) {
        this.file = file;
        this.pipe = pipe;
        this.bigEndian = bigEndian;
    }

    String feature(String name, String fallback) {
        String v = features.get(name);
        return v == null || v.isBlank() ? fallback : v;
    }

    /** The build-id of an image of a machine ({@code -1} = host), or null. */
    String buildId(int pid, String filename) {
        String found = null;
        for (BuildId b : buildIds) {
            if (b.filename().equals(filename) && (b.pid() == pid || (pid == -1 && b.pid() == 0))) {
                found = b.id();
            }
        }
        return found;
    }
}

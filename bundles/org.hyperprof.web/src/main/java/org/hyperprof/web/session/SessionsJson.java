package org.hyperprof.web.session;

import org.hyperprof.api.store.StoredSession;
import org.hyperprof.web.http.Json;

/** A stored session's record as JSON (ids as strings: they are 63-bit, past JavaScript's exact integers). */
public final class SessionsJson {
    private SessionsJson() {
    }

    public static void write(Json json, StoredSession s) {
        json.beginObject().member("id", Long.toString(s.id())).member("name", s.name()).member("source", s.source())
                .member("what", s.what()).member("cpuType", s.cpuType()).member("status", s.status())
                .member("samples", s.samples())
                .member("startedAt", s.startedAt() == null ? null : s.startedAt().toString())
                .member("endedAt", s.endedAt() == null ? null : s.endedAt().toString())
                .member("profiledNanos", s.profiledNanos()).member("study", s.study());
        json.name("labels").beginArray();
        s.labels().forEach(json::value);
        json.endArray().name("events").beginArray();
        s.events().forEach(json::value);
        json.endArray().endObject();
    }
}

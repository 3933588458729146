package org.hyperprof.web.server;

/**
 * Who may read the view: a request must name this server in its Host header and show the access
 * token, in the address ({@code ?token=}) or in the cookie the first such request was given. Kept apart
 * from the servlet API so that the rule can be tested as it is.
 */
public final class Gatekeeper {

    /** What to do with a request. */
    public enum Decision {
        /** Serve it. */
        ALLOW,
        /** Serve it, and give the browser the token's cookie (the token came in the address). */
        ALLOW_AND_SET_COOKIE,
        /** Refuse it: the Host header names another server (DNS rebinding) or none. */
        WRONG_HOST,
        /** Refuse it: no token, or not this one. */
        NO_TOKEN
    }

    private final Serving serving;

    public Gatekeeper(Serving serving) {
        this.serving = serving;
    }

    /** The cookie's name: one per port, so that two Hyperprof processes on one machine keep theirs apart. */
    public static String cookieName(int port) {
        return "hyperprof-" + port;
    }

    public String cookieName() {
        return cookieName(serving.port());
    }

    /** The Set-Cookie header's value for this server's token. */
    public String cookie() {
        return cookieName() + "=" + serving.token().value() + "; Path=/; HttpOnly; SameSite=Strict";
    }

    /**
     * @param host        the Host header, or null
     * @param queryToken  the {@code token} parameter of the address, or null
     * @param cookieToken the value of this server's cookie, or null
     */
    public Decision decide(String host, String queryToken, String cookieToken) {
        if (!serving.hosts().allows(host)) {
            return Decision.WRONG_HOST;
        }
        if (serving.token().matches(queryToken)) {
            return serving.token().matches(cookieToken) ? Decision.ALLOW : Decision.ALLOW_AND_SET_COOKIE;
        }
        return serving.token().matches(cookieToken) ? Decision.ALLOW : Decision.NO_TOKEN;
    }
}

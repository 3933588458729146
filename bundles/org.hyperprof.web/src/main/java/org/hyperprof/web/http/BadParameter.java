package org.hyperprof.web.http;

/** A request parameter that is missing or not what the endpoint takes: answered with 400 and this message. */
public final class BadParameter extends Exception {
    private static final long serialVersionUID = 1L;

    public BadParameter(String message) {
        super(message);
    }
}

package org.hyperprof.web.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The secret a browser shows to read this process's profiles: printed in the address {@code hp:serve}
 * gives, then kept in a cookie. Without it, any page the user visits could read the view through DNS
 * rebinding or a guessed port; the Host check stops the first, the token both.
 */
public final class AccessToken {
    private final String value;

    private AccessToken(String value) {
        this.value = value;
    }

    /** 256 random bits, URL-safe. */
    public static AccessToken random() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return new AccessToken(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
    }

    /** A fixed token (tests). */
    public static AccessToken of(String value) {
        if (value == null || value.length() < 16) {
            throw new IllegalArgumentException("an access token has at least 16 characters");
        }
        return new AccessToken(value);
    }

    public String value() {
        return value;
    }

    /** Whether a presented token is this one, in time that does not depend on where they differ. */
    public boolean matches(String presented) {
        if (presented == null) {
            return false;
        }
        return MessageDigest.isEqual(value.getBytes(StandardCharsets.UTF_8), presented.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
        return "AccessToken[hidden]";
    }
}

package cxm.opensearch;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Checks an HTTP request's AWS Signature Version 4 (service {@code es}) against one access key, as
 * Amazon OpenSearch Service checks a domain's requests: the canonical request (method, the path
 * escaped again, the sorted query, the signed headers, the payload's SHA-256), the credential
 * scope of this region and service, and a signing time within 15 minutes of now. A request that
 * fails any of these is refused before the engine sees it.
 *
 * <p>Example: {@code new SigV4Verifier("AKID", "secret", "us-east-1").check("GET", "/", headers, body)}
 * answers {@code null} for a valid signature, else why it is refused.
 */
final class SigV4Verifier {
  private static final String SERVICE = "es";
  private static final Duration MAX_SKEW = Duration.ofMinutes(15);
  private static final Pattern AUTHORIZATION = Pattern.compile(
      "^AWS4-HMAC-SHA256 Credential=([^/,\\s]+)/(\\d{8})/([^/,\\s]+)/([^/,\\s]+)/aws4_request,\\s*"
          + "SignedHeaders=([a-z0-9!#$%&'*+.^_`|~-]+(?:;[a-z0-9!#$%&'*+.^_`|~-]+)*),\\s*Signature=([0-9a-f]{64})$");
  private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

  private final String accessKeyId;
  private final byte[] secret;
  private final String region;
  private final Supplier<Instant> clock;

  SigV4Verifier(String accessKeyId, String secretAccessKey, String region) {
    this(accessKeyId, secretAccessKey, region, Instant::now);
  }

  SigV4Verifier(String accessKeyId, String secretAccessKey, String region, Supplier<Instant> clock) {
    this.accessKeyId = accessKeyId;
    this.secret = ("AWS4" + secretAccessKey).getBytes(StandardCharsets.UTF_8);
    this.region = region;
    this.clock = clock;
  }

  /**
   * Null when the request carries a valid signature of this key, else the reason it is refused.
   *
   * @param uri the request target as sent: the raw path and query, still percent-encoded
   * @param headers by lowercase name, each with every value it was sent with
   */
  String check(String method, String uri, Map<String, List<String>> headers, byte[] body) {
    String authorization = single(headers, "authorization");
    if (authorization == null) return "the request is not signed: an Authorization header with a SigV4 signature is required";
    Matcher match = AUTHORIZATION.matcher(authorization);
    if (!match.matches()) return "the Authorization header is not an AWS4-HMAC-SHA256 signature";
    String keyId = match.group(1);
    String day = match.group(2);
    String scopeRegion = match.group(3);
    String service = match.group(4);
    List<String> signed = List.of(match.group(5).split(";"));
    String signature = match.group(6);
    if (!MessageDigest.isEqual(keyId.getBytes(StandardCharsets.UTF_8), accessKeyId.getBytes(StandardCharsets.UTF_8)))
      return "the access key id is not one this engine accepts";
    if (!service.equals(SERVICE) || !scopeRegion.equals(region))
      return "the credential scope must be <date>/" + region + "/" + SERVICE + "/aws4_request";
    if (!signed.contains("host") || !signed.contains("x-amz-date")) return "the signature must cover host and x-amz-date";
    for (int i = 1; i < signed.size(); i++) {
      if (signed.get(i - 1).compareTo(signed.get(i)) >= 0) return "SignedHeaders must be sorted and distinct";
    }
    String amzDate = single(headers, "x-amz-date");
    Instant signedAt;
    try {
      signedAt = LocalDateTime.parse(amzDate == null ? "" : amzDate, AMZ_DATE).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      return "x-amz-date is missing or not of the form yyyyMMddTHHmmssZ";
    }
    if (!amzDate.startsWith(day)) return "the credential scope's date is not x-amz-date's";
    if (Duration.between(signedAt, clock.get()).abs().compareTo(MAX_SKEW) > 0)
      return "the signature is more than 15 minutes from now (x-amz-date)";

    String payloadHash = hex(sha256(body));
    String declared = single(headers, "x-amz-content-sha256");
    if (declared != null && !declared.equals(payloadHash)) return "x-amz-content-sha256 is not the body's SHA-256";

    String path = uri;
    String query = "";
    int mark = uri.indexOf('?');
    if (mark >= 0) {
      path = uri.substring(0, mark);
      query = uri.substring(mark + 1);
    }
    // The engine routes on the path as sent, which the SDK's canonical form would normalise: a
    // signed request replayed with `/./`, `/../` or `//` in its path must not reach another resource.
    if (!rawPath(path)) return "the path has empty, '.' or '..' segments";
    String canonicalQuery = canonicalQuery(query);
    if (canonicalQuery == null) return "the query string names a parameter twice or is not percent-encoded";
    StringBuilder canonicalHeaders = new StringBuilder();
    for (String name : signed) {
      List<String> values = headers.get(name);
      if (values == null || values.size() != 1) return "signed header " + name + " must be sent exactly once";
      canonicalHeaders.append(name).append(':').append(canonicalHeaderValue(values.get(0))).append('\n');
    }
    String canonicalRequest = String.join("\n", method, canonicalPath(path), canonicalQuery,
        canonicalHeaders.toString(), String.join(";", signed), declared != null ? declared : payloadHash);
    String scope = day + "/" + region + "/" + SERVICE + "/aws4_request";
    String stringToSign = String.join("\n", "AWS4-HMAC-SHA256", amzDate, scope,
        hex(sha256(canonicalRequest.getBytes(StandardCharsets.UTF_8))));
    byte[] key = secret;
    for (String part : new String[] {day, region, SERVICE, "aws4_request"}) key = hmac(key, part);
    byte[] expected = HexFormat.of().formatHex(hmac(key, stringToSign)).getBytes(StandardCharsets.US_ASCII);
    if (!MessageDigest.isEqual(expected, signature.getBytes(StandardCharsets.US_ASCII)))
      return "the request signature does not match the one calculated for it";
    return null;
  }

  private static String single(Map<String, List<String>> headers, String name) {
    List<String> values = headers.get(name);
    return values == null || values.size() != 1 ? null : values.get(0);
  }

  /** Whether a path has no empty, `.` or `..` segment (a trailing `/` aside): what the SDK signs as it is sent. */
  static boolean rawPath(String path) {
    if (!path.startsWith("/")) return false;
    String inner = path.endsWith("/") && path.length() > 1 ? path.substring(1, path.length() - 1) : path.substring(1);
    if (inner.isEmpty()) return true;
    for (String segment : inner.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) return false;
    }
    return true;
  }

  /** As the SDK's signer: dot segments resolved, empty segments dropped, then the whole path escaped again. */
  static String canonicalPath(String rawPath) {
    List<String> segments = new ArrayList<>();
    for (String segment : rawPath.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".")) continue;
      if (segment.equals("..")) {
        if (!segments.isEmpty()) segments.remove(segments.size() - 1);
      } else {
        segments.add(segment);
      }
    }
    String normalized = (rawPath.startsWith("/") ? "/" : "") + String.join("/", segments)
        + (!segments.isEmpty() && rawPath.endsWith("/") ? "/" : "");
    return escape(normalized).replace("%2F", "/");
  }

  /** Sorted by escaped name, each `name=value` escaped; null for a name given twice or a bad escape. */
  static String canonicalQuery(String rawQuery) {
    TreeMap<String, String> pairs = new TreeMap<>();
    if (rawQuery.isEmpty()) return "";
    for (String pair : rawQuery.split("&")) {
      if (pair.isEmpty()) continue;
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = decode(eq < 0 ? "" : pair.substring(eq + 1));
      if (name == null || value == null) return null;
      if (name.toLowerCase(Locale.ROOT).equals("x-amz-signature")) continue;
      String escaped = escape(name);
      if (pairs.put(escaped, escaped + "=" + escape(value)) != null) return null;
    }
    return String.join("&", pairs.values());
  }

  private static String canonicalHeaderValue(String value) {
    return value.replaceAll("[\r\n]", " ").replaceAll("[ \t]+", " ").replaceAll("^ | $", "");
  }

  /** RFC 3986 escaping of every byte but the unreserved characters, as the SDK's escapeUri. */
  static String escape(String text) {
    StringBuilder out = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return out.toString();
  }

  /** Percent-decoding as a browser's URLSearchParams reads a query (`+` is a space); null for a bad escape. */
  static String decode(String text) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < text.length(); i += Character.charCount(text.codePointAt(i))) {
      int c = text.codePointAt(i);
      if (c == '+') {
        out.write(' ');
      } else if (c == '%') {
        if (i + 2 >= text.length()) return null;
        int high = Character.digit(text.charAt(i + 1), 16);
        int low = Character.digit(text.charAt(i + 2), 16);
        if (high < 0 || low < 0) return null;
        out.write((high << 4) | low);
        i += 2;
      } else {
        byte[] bytes = Character.toString(c).getBytes(StandardCharsets.UTF_8);
        out.write(bytes, 0, bytes.length);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }
}

package cxm.opensearch;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import org.opensearch.Version;
import org.opensearch.common.network.NetworkService;
import org.opensearch.common.settings.ClusterSettings;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.util.BigArrays;
import org.opensearch.common.util.PageCacheRecycler;
import org.opensearch.common.util.concurrent.ThreadContext;
import org.opensearch.core.common.bytes.BytesReference;
import org.opensearch.core.common.io.stream.NamedWriteableRegistry;
import org.opensearch.core.indices.breaker.CircuitBreakerService;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.http.HttpServerTransport;
import org.opensearch.rest.BytesRestResponse;
import org.opensearch.rest.RestChannel;
import org.opensearch.rest.RestHandler;
import org.opensearch.rest.RestRequest;
import org.opensearch.telemetry.tracing.Tracer;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.Netty4Plugin;
import org.opensearch.transport.SharedGroupFactory;
import org.opensearch.transport.Transport;
import org.opensearch.transport.netty4.Netty4Transport;

/**
 * OpenSearch's own Netty HTTP layer, with every request's SigV4 signature checked before the
 * engine dispatches it (unknown paths and malformed requests included): one signed with another
 * key, or not at all, is answered 403 and reaches nothing. The node-to-node transport, which a
 * single node never needs, binds to loopback only to close each connection it accepts.
 */
public final class SignedNetty4Plugin extends Netty4Plugin {
  private final SigV4Verifier verifier;

  public SignedNetty4Plugin() {
    this.verifier = new SigV4Verifier(required("CXM_OPENSEARCH_ACCESS_KEY_ID"), required("CXM_OPENSEARCH_SECRET_ACCESS_KEY"),
        required("CXM_OPENSEARCH_REGION"));
  }

  private static String required(String name) {
    String value = System.getenv(name);
    if (value == null || value.isEmpty()) throw new IllegalStateException(name + " is not set: the engine accepts no request unsigned");
    return value;
  }

  @Override
  public Map<String, Supplier<HttpServerTransport>> getHttpTransports(Settings settings, ThreadPool threadPool, BigArrays bigArrays,
      PageCacheRecycler pageCacheRecycler, CircuitBreakerService circuitBreakerService, NamedXContentRegistry xContentRegistry,
      NetworkService networkService, HttpServerTransport.Dispatcher dispatcher, ClusterSettings clusterSettings, Tracer tracer) {
    return super.getHttpTransports(settings, threadPool, bigArrays, pageCacheRecycler, circuitBreakerService, xContentRegistry,
        networkService, new SignedDispatcher(dispatcher, verifier), clusterSettings, tracer);
  }

  @Override
  public Map<String, Supplier<Transport>> getTransports(Settings settings, ThreadPool threadPool, PageCacheRecycler pageCacheRecycler,
      CircuitBreakerService circuitBreakerService, NamedWriteableRegistry namedWriteableRegistry, NetworkService networkService,
      Tracer tracer) {
    return Map.of(NETTY_TRANSPORT_NAME, () -> new ClosedTransport(settings, threadPool, networkService, pageCacheRecycler,
        namedWriteableRegistry, circuitBreakerService, tracer));
  }

  /** Netty's node transport, refusing every inbound connection: a single node talks to itself in process. */
  static final class ClosedTransport extends Netty4Transport {
    ClosedTransport(Settings settings, ThreadPool threadPool, NetworkService networkService, PageCacheRecycler recycler,
        NamedWriteableRegistry registry, CircuitBreakerService breakers, Tracer tracer) {
      // One event-loop thread: it only ever closes what connects.
      super(settings, Version.CURRENT, threadPool, networkService, recycler, registry, breakers,
          new SharedGroupFactory(Settings.builder().put(settings).put("transport.netty.worker_count", 1).build()), tracer);
    }

    @Override
    protected ChannelHandler getServerChannelInitializer(String name) {
      return new ChannelInitializer<Channel>() {
        @Override
        protected void initChannel(Channel channel) {
          channel.close();
        }
      };
    }
  }

  /** Lets through to the engine only what carries a valid signature. */
  static final class SignedDispatcher implements HttpServerTransport.Dispatcher {
    private final HttpServerTransport.Dispatcher engine;
    private final SigV4Verifier verifier;

    SignedDispatcher(HttpServerTransport.Dispatcher engine, SigV4Verifier verifier) {
      this.engine = engine;
      this.verifier = verifier;
    }

    @Override
    public Optional<RestHandler> dispatchHandler(String uri, String rawPath, RestRequest.Method method, Map<String, String> params) {
      // Nothing is routed around the signature check.
      return Optional.empty();
    }

    @Override
    public void dispatchRequest(RestRequest request, RestChannel channel, ThreadContext threadContext) {
      String refusal = refusal(request);
      if (refusal == null) engine.dispatchRequest(request, channel, threadContext);
      else forbid(channel, refusal);
    }

    @Override
    public void dispatchBadRequest(RestChannel channel, ThreadContext threadContext, Throwable cause) {
      String refusal = refusal(channel.request());
      if (refusal == null) engine.dispatchBadRequest(channel, threadContext, cause);
      else forbid(channel, refusal);
    }

    private String refusal(RestRequest request) {
      Map<String, List<String>> headers = new HashMap<>();
      for (Map.Entry<String, List<String>> header : request.getHeaders().entrySet()) {
        headers.computeIfAbsent(header.getKey().toLowerCase(Locale.ROOT), name -> new ArrayList<>()).addAll(header.getValue());
      }
      // The HTTP request's own body: RestRequest.content() would mark it read, which is the
      // handler's to do (the engine refuses a body a handler did not read).
      BytesReference content = request.getHttpRequest().content();
      byte[] body = content == null ? new byte[0] : BytesReference.toBytes(content);
      return verifier.check(request.method().name(), request.uri(), headers, body);
    }

    private static void forbid(RestChannel channel, String reason) {
      String json = "{\"message\":\"" + reason.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
      channel.sendResponse(new BytesRestResponse(RestStatus.FORBIDDEN, "application/json; charset=UTF-8",
          json.getBytes(StandardCharsets.UTF_8)));
    }
  }
}

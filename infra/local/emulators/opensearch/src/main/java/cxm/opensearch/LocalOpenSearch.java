package cxm.opensearch;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.settings.Settings;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;

/**
 * One OpenSearch node in this JVM, for the local stack and the tests (infra/local/README.md):
 * {@code java -cp <classes>:<the POM's class path> cxm.opensearch.LocalOpenSearch name=value...},
 * each argument a node setting. It serves HTTP through {@link SignedNetty4Plugin} only, runs until
 * its process is told to stop, and closes the node (flushing what it holds) on the way out.
 */
public final class LocalOpenSearch extends Node {
  private LocalOpenSearch(Settings settings) {
    super(InternalSettingsPreparer.prepareEnvironment(settings, Collections.emptyMap(), null, () -> settings.get("node.name")),
        List.of(SignedNetty4Plugin.class), true);
  }

  /** The listener records the node and cluster ids in a static, once per JVM: nothing here reads them. */
  @Override
  protected void configureNodeAndClusterIdStateListener(ClusterService clusterService) {}

  public static void main(String[] args) throws Exception {
    Settings.Builder settings = Settings.builder();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq <= 0) throw new IllegalArgumentException("not a setting (name=value): " + arg);
      settings.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    LocalOpenSearch node = new LocalOpenSearch(settings.build());
    // The node's threads are daemons: this one keeps the JVM up until a signal's shutdown hook has closed it.
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        node.close();
      } catch (Exception e) {
        e.printStackTrace();
      } finally {
        closed.countDown();
      }
    }, "cxm-local-opensearch-shutdown"));
    node.start();
    closed.await();
  }
}

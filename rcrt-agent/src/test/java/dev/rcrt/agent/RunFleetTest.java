package dev.rcrt.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.testing.TestClock;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Executors serving one agent from one store ({@code start()}): each run is claimed once, whatever the fleet size. */
class RunFleetTest {
  private static final int MESSAGES = 40;

  private final TestClock clock = new TestClock();
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().clock(clock).build();
  private final ClaimCountingStore counted = new ClaimCountingStore(store);
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  @Test
  void threeExecutorsServingOneAgentClaimEachRunOnceAndShareTheRuns() throws Exception {
    BuiltinTools.seed(store);
    AgentDefinition agent = AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()));
    Map<Integer, ScriptedLlmClient> models = new ConcurrentHashMap<>();
    for (int i = 0; i < 3; i++) {
      ScriptedLlmClient llm = ScriptedLlmClient.answering(r -> r.messages().get(r.messages().size() - 1).role().equals("tool")
          ? ChatResponse.text("done")
          : ChatResponse.toolCalls(new ToolCall("c1", "echo", "{\"message\":\"hi\"}")));
      models.put(i, llm);
      ToolRunner runner = ToolRunner.builder(counted).timeSource(clock).build();
      AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent).build();
      closing.add(runner);
      closing.add(executor);
      Subscription serving = executor.start(); // joins the agent's fleet
      closing.add(0, serving::close);
    }
    clock.advance(Duration.ofSeconds(5)); // a third of the run lease (15 s): each reads the members again, all three now

    CountDownLatch answered = new CountDownLatch(MESSAGES);
    Subscription answers = store.subscribe(Selector.schema(AgentResponse.SCHEMA).withAllTags("agent:response"), e -> answered.countDown());
    closing.add(answers::close);
    for (int i = 0; i < MESSAGES; i++) {
      store.create(new UserMessage("fleet-" + i, "message " + i).toBreadcrumb());
    }
    assertThat(answered.await(30, TimeUnit.SECONDS)).as("every message answered, with no clock moved").isTrue();

    List<Breadcrumb> rounds = store.search(Selector.allTags("agent:round"), 1000, 0);
    Map<String, Long> runs = rounds.stream().collect(Collectors.groupingBy(b -> b.tagValue("run:").orElseThrow(), Collectors.counting()));
    assertThat(runs).hasSize(MESSAGES);
    runs.keySet().forEach(run -> assertThat(counted.attemptsOn("agent.run:" + run)).as("claims of run " + run).isEqualTo(1));
    assertThat(store.search(Selector.schema(AgentResponse.SCHEMA).withAllTags("agent:response"), 1000, 0)).hasSize(MESSAGES);
    assertThat(models.values().stream().mapToInt(m -> m.requests().size()).sum()).as("each run's two rounds asked once").isEqualTo(2 * MESSAGES);
    assertThat(models.values().stream().filter(m -> !m.requests().isEmpty()).count()).as("the runs were shared").isGreaterThan(1);
  }
}

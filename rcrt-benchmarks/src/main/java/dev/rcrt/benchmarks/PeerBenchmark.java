package dev.rcrt.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.objecthunter.exp4j.ExpressionBuilder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The SDK beside LangChain4j in the same JMH run, same tools, same inputs.
 *
 * <ul>
 *   <li><b>no-op call</b>: RCRT runs the whole chain (record the {@code tool.request.v1}, resolve
 *       from the store, trust, approval check, validate input and output against JSON Schema, scrub,
 *       run under a deadline, record the {@code tool.response.v1}); LangChain4j's {@code
 *       DefaultToolExecutor} parses the arguments and invokes an {@code @Tool} method reflectively.
 *   <li><b>calculator call</b>: the same, with {@code 17 * 23} evaluated by exp4j on both sides.
 *   <li><b>agent turn</b>: one user message, an instant scripted model that asks for the
 *       calculator once and then answers; RCRT's {@link AgentExecutor} (discovery from the store,
 *       prompt, memory, the four-breadcrumb trail) against LangChain4j's {@code AiServices} with a
 *       scripted {@code ChatModel} and no memory.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PeerBenchmark {
  InMemoryBreadcrumbStore store;
  ToolRunner runner;
  AgentExecutor executor;
  long session;
  final JsonNode noInput = RcrtJson.object();
  final JsonNode calcInput = RcrtJson.parse("{\"expression\":\"17 * 23\"}");

  DefaultToolExecutor lc4jNoOp;
  DefaultToolExecutor lc4jCalculator;
  final ToolExecutionRequest lc4jNoOpRequest = ToolExecutionRequest.builder().id("1").name("noop").arguments("{}").build();
  final ToolExecutionRequest lc4jCalcRequest =
      ToolExecutionRequest.builder().id("1").name("calculator").arguments("{\"expression\":\"17 * 23\"}").build();
  Assistant assistant;

  /** The LangChain4j tools: the same work as RCRT's {@code noop} handler and bundled calculator. */
  public static final class Lc4jTools {
    @Tool("Does nothing")
    public String noop() {
      return "{}";
    }

    @Tool("Evaluates an arithmetic expression")
    public double calculator(@P(name = "expression", value = "the expression") String expression) {
      return new ExpressionBuilder(expression).build().evaluate();
    }
  }

  /** The LangChain4j AI service. */
  public interface Assistant {
    String chat(String message);
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    BuiltinTools.seed(store);
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "No-op")
        .context(RcrtJson.parse("{\"name\":\"noop\",\"description\":\"Does nothing\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\"}}"))
        .build());
    JsonNode empty = RcrtJson.object();
    runner = ToolRunner.builder(store).handler("noop", (in, ctx) -> empty).build();
    AgentDefinition agent = AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()));
    LlmClient instant =
        request -> {
          List<dev.rcrt.llm.ChatMessage> m = request.messages();
          return "tool".equals(m.get(m.size() - 1).role())
              ? ChatResponse.text("391")
              : ChatResponse.toolCalls(new ToolCall("call_1", "calculator", "{\"expression\":\"17 * 23\"}"));
        };
    executor = AgentExecutor.builder(instant, runner).agent(agent).build();

    Lc4jTools tools = new Lc4jTools();
    Method noop = Lc4jTools.class.getMethod("noop");
    Method calculator = Lc4jTools.class.getMethod("calculator", String.class);
    lc4jNoOp = new DefaultToolExecutor(tools, noop);
    lc4jCalculator = new DefaultToolExecutor(tools, calculator);
    ChatModel scripted =
        new ChatModel() {
          @Override
          public dev.langchain4j.model.chat.response.ChatResponse doChat(dev.langchain4j.model.chat.request.ChatRequest request) {
            List<ChatMessage> m = request.messages();
            AiMessage answer =
                m.get(m.size() - 1) instanceof ToolExecutionResultMessage
                    ? AiMessage.from("391")
                    : AiMessage.from(List.of(lc4jCalcRequest));
            return dev.langchain4j.model.chat.response.ChatResponse.builder().aiMessage(answer).build();
          }
        };
    assistant = AiServices.builder(Assistant.class).chatModel(scripted).tools(tools).build();
    check();
  }

  /** Both sides must do the work being compared: every benchmark's answer is checked once before measuring. */
  private void check() {
    require("rcrt no-op", rcrtNoOpCall().success());
    require("rcrt calculator", rcrtCalculatorCall().requireOutput().get("result").asInt() == 391);
    require("rcrt turn", "391".equals(rcrtAgentTurn().contextText("message")));
    require("langchain4j no-op", "{}".equals(langchain4jNoOpCall()));
    require("langchain4j calculator", langchain4jCalculatorCall().startsWith("391"));
    require("langchain4j turn", "391".equals(langchain4jAgentTurn()));
  }

  private static void require(String what, boolean ok) {
    if (!ok) {
      throw new IllegalStateException(what + " did not produce the expected answer; the comparison would be meaningless");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    executor.close();
    runner.close();
  }

  @Benchmark
  public ToolResponse rcrtNoOpCall() {
    return runner.call(ToolRequest.of("noop", noInput, "bench"));
  }

  @Benchmark
  public String langchain4jNoOpCall() {
    return lc4jNoOp.execute(lc4jNoOpRequest, "bench");
  }

  @Benchmark
  public ToolResponse rcrtCalculatorCall() {
    return runner.call(ToolRequest.of("calculator", calcInput, "bench"));
  }

  @Benchmark
  public String langchain4jCalculatorCall() {
    return lc4jCalculator.execute(lc4jCalcRequest, "bench");
  }

  @Benchmark
  public Breadcrumb rcrtAgentTurn() {
    Breadcrumb trigger = store.create(new UserMessage("bench-" + session++, "What is 17 * 23?").toBreadcrumb());
    return executor.answer(trigger);
  }

  @Benchmark
  public String langchain4jAgentTurn() {
    return assistant.chat("What is 17 * 23?");
  }
}

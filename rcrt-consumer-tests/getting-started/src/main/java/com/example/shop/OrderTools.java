package com.example.shop;

import dev.rcrt.tools.Tool;
import dev.rcrt.tools.ToolParam;
import java.util.List;

/** Two tools from annotated methods: their input and output JSON Schemas come from the Java types. */
public class OrderTools {
  /** An order line: what the model sends in. */
  public record Line(String sku, int quantity) {}

  /** An order as the tool returns it. */
  public record Order(String id, String status, double total) {}

  @Tool(description = "The price of an order line in euros")
  public double price(@ToolParam(description = "the SKU and how many") Line line) {
    double unit = line.sku().startsWith("BOOK-") ? 12.5 : 4.0;
    return unit * line.quantity();
  }

  @Tool(description = "The customer's open orders, newest first")
  public List<Order> openOrders(@ToolParam(description = "customer id, such as c-42") String customer) {
    return List.of(new Order("o-1002", "packed", 25.0), new Order("o-1001", "paid", 8.0));
  }
}

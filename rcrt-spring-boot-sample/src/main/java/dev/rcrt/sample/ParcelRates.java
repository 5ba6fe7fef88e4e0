package dev.rcrt.sample;

import dev.rcrt.tools.Tool;
import dev.rcrt.tools.ToolParam;
import java.util.Locale;
import java.util.Map;
import org.springframework.stereotype.Component;

/** Parcel rates by destination: a tool the starter registers because it has a {@code @Tool} method. */
@Component
public class ParcelRates {
  /** A destination's rate. */
  public record Rate(String destination, double perKg, double fee, String currency) {}

  private static final Map<String, Rate> RATES = Map.of(
      "oslo", new Rate("Oslo", 4.5, 12.0, "NOK"),
      "bergen", new Rate("Bergen", 5.0, 15.0, "NOK"),
      "tromso", new Rate("Tromsø", 7.25, 20.0, "NOK"));

  @Tool(description = "The parcel rate to a destination city: price per kilogram and a fixed fee per parcel")
  public Rate parcelRate(@ToolParam(description = "destination city, e.g. Oslo") String destination) {
    Rate rate = RATES.get(destination.toLowerCase(Locale.ROOT));
    if (rate == null) {
      throw new IllegalArgumentException("no rate for " + destination + "; we ship to Oslo, Bergen and Tromso");
    }
    return rate;
  }
}

// A person at the console, in the machine's Chromium driven by playwright-core: opens the approvals
// inbox, approves the waiting call as alice, and watches the run's answer come in under Runs without
// a reload; looks at the trail, the tools, search and the chat. Screenshots of each page go to SHOTS.
// Prints one JSON object: what the page showed and whether anything a record carried ran as script.
import { chromium } from "playwright-core";

const [base, executablePath, shots] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
const out = {};
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  const dialogs = [];
  page.on("dialog", async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  await page.goto(base + "/#approvals");
  await page.getByText("Tool 'wire-money' in run").waitFor();
  await page.screenshot({ path: shots + "/console-approvals.png" });

  await page.fill("#approver", "alice");
  await page.dispatchEvent("#approver", "change");
  await page.locator("#inbox input").first().fill("expected bill");
  await page.locator("#inbox button", { hasText: "approve" }).first().click();
  await page.getByText("Approved: tool 'wire-money'").waitFor();
  // the decision's own record refreshes the inbox, which no longer lists the call: what the person was told stays
  await page.getByText("Nothing waits for a decision.").waitFor();
  out.approvedAfterRefresh = await page.getByText("Approved: tool 'wire-money'").isVisible();

  await page.click("nav button[data-view=runs]");
  await page.locator("#run-rows td", { hasText: "Paid" }).first().waitFor({ timeout: 60000 }); // live: no reload
  out.answer = await page.locator("#run-rows td", { hasText: "Paid" }).first().textContent();
  await page.screenshot({ path: shots + "/console-runs.png" });
  await page.locator("#run-rows tr.run").first().click();
  await page.locator("#trail-rows tr").first().waitFor();
  out.trail = await page.locator("#trail-rows").textContent();
  await page.screenshot({ path: shots + "/console-trail.png", fullPage: true });

  await page.click("nav button[data-view=tools]");
  await page.locator("#tool-rows td", { hasText: "calculator" }).first().waitFor();
  await page.screenshot({ path: shots + "/console-tools.png" });

  await page.click("nav button[data-view=search]");
  await page.fill("#query", "sending money");
  await page.click("#search-form button");
  await page.locator("#results li").first().waitFor();
  out.search = await page.locator("#results").textContent();
  await page.screenshot({ path: shots + "/console-search.png" });

  await page.click("nav button[data-view=chat]");
  await page.locator("#agent option").first().waitFor({ state: "attached" });
  await page.fill("#message", "hello there");
  await page.click("#chat-form button");
  await page.locator("#transcript div", { hasText: "Hello from the agent" }).first().waitFor();
  out.chat = await page.locator("#transcript").textContent();
  await page.screenshot({ path: shots + "/console-chat.png" });

  out.pwned = await page.evaluate(() => window.__pwned ?? null);
  out.title = await page.title();
  out.scripts = await page.locator("script").count();
  out.javascriptLinks = await page.locator("a[href^='javascript:']").count();
  out.dialogs = dialogs;
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));

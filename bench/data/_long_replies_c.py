"""long_replies conversations lr-09 .. lr-12 (see make_long_replies.py)."""

from make_long_replies import A, Conv, U

CONVS = []

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-09", "Tomasz", "en", [
("2025-01-04 21:30", [
U("New year, new plan. I take home about $4,800 a month after tax, I have $14,000 on two credit "
  "cards, and I'd like to buy a flat in about three years.", "income"),
A(r"""
That's a clear starting point, and three years is a realistic horizon if the credit cards go first. Card interest is almost certainly the most expensive money in your life right now, so the plan has two phases: clear the cards fast, then build the deposit.

**Phase 1: the credit cards**

$14,000 at a typical card rate of 20–25% costs roughly $230–290 a month in interest alone. Every dollar you pay off early is a guaranteed 20%+ return, far better than any savings account.

Two common strategies:

- **Avalanche**: pay minimums on both, put every extra dollar on the card with the **highest interest rate**. Cheapest overall.
- **Snowball**: pay off the **smallest balance** first for a quick win, then roll that payment into the next. Slightly more expensive, but motivating.

I'd recommend avalanche unless you know you need the early win.

**A starting budget on $4,800**

| Category | Amount |
|---|---|
| Rent and utilities | $1,600 |
| Groceries and household | $550 |
| Transport | $250 |
| Insurance, phone, subscriptions | $200 |
| Personal spending | $400 |
| Emergency fund (until $2,000) | $200 |
| **Credit cards** | **$1,600** |

At $1,600 a month, $14,000 is gone in about **nine to ten months**, including interest. Then that $1,600 becomes your deposit savings.

**A small emergency fund first**

Keep about $2,000 in cash before throwing everything at the cards, so an unexpected bill doesn't go straight back onto a card. After the cards are cleared, build it to three months of essential expenses.

**Phase 2: the flat deposit**

From about October, saving $1,600–1,800 a month for two years gives roughly **$40,000–45,000**, plus interest in a high-yield savings account. Whether that's enough depends on prices where you want to buy and the deposit percentage lenders require — tell me the city and a typical price and we'll set a target.

**Quick wins**

- Call both card issuers and ask for a lower rate; it works more often than people expect.
- Consider a 0% balance transfer card if your credit score allows it — but only with a plan to pay it off within the promotional period, and note the transfer fee (often 3–5%).
- Automate the card payment the day after payday so the money never sits in your current account.

What interest rates are the two cards at? That decides which one to attack first.
""", "phase_plan"),
U("Card A is $9,000 at 24.9%, card B is $5,000 at 17.9%. I really don't want to touch my "
  "retirement contributions, I keep 5% going into my workplace pension.", "cards"),
A(r"""
Good — keeping your 5% pension contribution is the right call, especially if your employer matches part of it. A match is an instant return that beats even paying off a 24.9% card, and stopping contributions costs you years of compound growth you can't easily make up.

**Avalanche order**

1. **Card A (24.9%, $9,000)** — all extra money goes here.
2. **Card B (17.9%, $5,000)** — minimum payments only, until A is cleared.

**Month-by-month, with $1,600 a month toward cards**

Assuming minimums of about $150 on card B and the rest on card A:

| Month | Card A balance | Card B balance |
|---|---|---|
| Jan | $7,735 | $4,925 |
| Mar | $5,150 | $4,775 |
| May | $2,450 | $4,620 |
| Jul | $0 (paid in early July) | $4,460 |
| Aug | – | $2,920 |
| Oct | – | $0 (paid in October) |

Total interest paid: roughly **$1,450**. With snowball (card B first), you'd pay around $200 more.

**Balance transfer option**

If you can get a 0% card with a limit of $9,000 for 15–18 months and a 3% fee ($270), moving card A there saves about $800 in interest. Only do this if:

- you close or freeze the old card (or at least don't use it);
- you can clear it before the promotion ends — on this plan you'd clear it in about six months, well within the window.

**Protect the plan**

- Put cards in a drawer and remove them from online shops and phone wallets.
- Use a debit card for daily spending.
- If something unexpected comes up, use the $2,000 emergency fund, then refill it before resuming extra card payments.

**Pension**

At 5%, check two things: whether your employer matches beyond 5% (if they match up to 6%, the extra 1% is worth more than anything else here), and which fund you're in. A low-cost global index fund is a sensible default for a 30+ year horizon.

**After the cards**

In November, redirect the full $1,600 to deposit savings, and increase it by whatever you were paying in card minimums. We'll set up the deposit account then.
""", "avalanche"),
U("I'm not a spreadsheet person. I'd like something I can check in five minutes a month, not "
  "a daily tracking habit.", "lowtouch"),
A(r"""
That's a perfectly good way to manage money: automate the decisions once, then do a short monthly check. Detailed daily tracking only helps people who enjoy it.

**Set it up once**

On payday, money flows automatically:

1. **Salary arrives** in your main current account.
2. **Day after payday, automatic transfers**:
   - $1,600 to credit card A (later card B, later deposit savings).
   - $200 to the emergency fund savings account (until it reaches $2,000).
3. **Direct debits** for rent, utilities, insurance and subscriptions go out from the main account.
4. **What's left** is yours to spend for the month. No categories, no tracking.

A separate "bills" account can help if you find it hard to see what's already committed: move the total of fixed bills there on payday, and leave only spending money in the main account.

**The five-minute monthly check**

On the first Sunday of each month, look at four numbers and write them in a note on your phone:

| Date | Card A | Card B | Emergency fund | Deposit |
|---|---|---|---|---|
| Feb 2 | $7,735 | $4,925 | $400 | $0 |

Questions to ask:

- Did the automatic transfers go through?
- Did the card balances fall by roughly the amount expected?
- Did I end the month with money left or borrowed? If borrowed, what was it?

That's it. If the numbers move the right way, nothing else is needed.

**Guardrails instead of tracking**

- **Spending alerts**: set your bank app to notify you when the main account drops below, say, $300.
- **Card alerts**: any transaction on the credit cards sends a notification, which makes accidental use obvious.
- **A "one-night rule"**: anything over $150 that isn't planned waits a day.

**Apps**

If you want a tool, pick one that summarizes rather than demands categorization. Many bank apps now show monthly totals automatically. Avoid budgeting apps that require you to assign every transaction — that's the daily habit you don't want.

**Quarterly 20-minute review**

Every three months, check whether the plan still fits: a raise, a new expense, an interest rate change on the cards.
""", "automation"),
]),
("2025-04-13 19:00", [
U("Update: I got a raise, take-home is now $5,400 a month. Card A is down to about $5,000.",
  "raise"),
A(r"""
Congratulations on the raise — and on the progress. Card A at about $5,000 in April is slightly ahead of the schedule we set. The key decision now is where the extra $600 a month goes. The best answer: most of it to the plan, a little to you.

**Suggested split of the extra $600**

- **$450 to the cards** (card A until paid, then card B).
- **$150 to personal spending**. A raise you never feel tends to leak out anyway; allocating some of it on purpose makes the plan sustainable.

So monthly card payments go from $1,600 to **$2,050**.

**Updated timeline**

| Month | Card A | Card B |
|---|---|---|
| May | ~$3,050 | ~$4,620 |
| Jun | ~$1,060 | ~$4,540 |
| Jul | $0 (paid off early in the month) | ~$3,500 |
| Aug | – | ~$1,450 |
| Sep | – | $0 |

Both cards cleared by **September**, about a month earlier than before, and total interest drops by around $150.

**Pension check**

With a higher salary, your 5% contribution rises automatically in dollars. If your employer matches above 5%, this is a good moment to go up to the full match — the increase is small relative to the raise, and you won't notice it as much as a cut from your current take-home.

**Emergency fund**

If it's reached $2,000, stop the $200 transfer and send it to the cards too — or keep it going to build toward three months of expenses, which at your essential spending is around $8,000. I'd pause it until the cards are cleared, then resume.

**Updating the automation**

- Change the day-after-payday transfer to $2,050.
- Add a calendar reminder for the month card A hits zero, to point the transfer at card B.

**Deposit projection with the raise**

From October, saving about $2,050–2,200 a month gives roughly **$50,000–55,000 by the end of 2027**, plus interest — a meaningful step up from the earlier $40,000–45,000 estimate.
""", "raise_reply"),
U("Change of target: my partner and I decided to buy together, so it's a joint purchase now "
  "and we're looking at Kraków instead of staying here.", "joint"),
A(r"""
That's a big and exciting change, and buying together usually makes the deposit goal much more achievable. It also adds a few things to sort out early: how you'll share ownership, how Polish mortgages work, and what currency your savings are in.

**Joint ownership basics**

- **Decide the ownership shares in writing.** If you contribute different amounts to the deposit, a written agreement (and the right form of ownership on the deed) protects both of you. In Poland, unmarried couples typically buy as co-owners with defined shares (*współwłasność w częściach ułamkowych*); married couples usually hold property jointly.
- **Talk about the "what ifs"**: one of you loses income, the relationship ends, one wants to sell. A notary can draft an agreement.
- **Both credit histories matter.** Lenders look at both incomes and debts — so clearing your cards before applying becomes even more important.

**Polish mortgage points**

- Minimum deposit is typically **20%** of the property price; 10% is possible with mortgage insurance or certain programs.
- Most lenders require income in **PLN** or charge more for foreign-currency income; if either of you earns in another currency, ask lenders early.
- Fixed-rate periods of 5 years are common; ask about the reference rate (WIBOR/WIRON) and the bank margin.
- Budget for costs on top of the deposit: notary fees, court registration fees, tax on civil law transactions (PCC, 2% on secondary-market purchases), agent fees if any, and furnishing. Plan for roughly **4–6%** of the price.

**Setting a target**

Example: a two-bedroom flat in Kraków at around PLN 700,000.

- 20% deposit: PLN 140,000.
- Transaction costs: ~PLN 35,000.
- **Total cash needed: about PLN 175,000.**

Split between two people over about 2.5 years, that's a very different monthly number than solo — tell me what your partner can save and we'll plan it.

**Currency risk**

If your savings are in dollars and the purchase is in złoty, exchange-rate moves can change your deposit by thousands. Consider converting gradually (e.g., monthly) into a PLN savings account once you're confident in the move, rather than all at once.

**Next steps**

1. Agree on contribution and ownership shares.
2. Ask a Polish mortgage broker for a pre-assessment with both incomes.
3. Keep clearing the cards — they're still phase 1.
""", "joint_reply"),
U("My partner can put in $1,200 a month. She really hates debt too, so we both want the "
  "smallest mortgage we can manage, even if it takes a bit longer.", "partner"),
A(r"""
Saving together with a shared aversion to debt is a strong position. Let's turn that into a target and a timeline, aiming for a larger-than-minimum deposit so the mortgage stays small.

**Combined savings from October**

- You: about $2,100 a month (after the cards are cleared in September).
- Your partner: $1,200 a month.
- **Together: about $3,300 a month**, roughly PLN 13,000 at current exchange rates.

**Deposit scenarios for a PLN 700,000 flat**

| Deposit | Cash needed (incl. ~5% costs) | Time at PLN 13,000/month |
|---|---|---|
| 20% | PLN 175,000 | ~13–14 months |
| 30% | PLN 245,000 | ~19 months |
| 40% | PLN 315,000 | ~24 months |

Your partner's savings from now until October add a head start of about PLN 30,000, which shortens each scenario by two to three months.

Given you both want the smallest mortgage possible, I'd aim for **30–40% down by early 2027**. A 40% deposit on PLN 700,000 means a loan of PLN 420,000 — at current Polish rates, roughly PLN 2,600–2,800 a month over 25 years, and much less interest over the life of the loan.

**Smaller mortgage, faster payoff**

- Take a standard 25–30 year term for a lower required payment, then **overpay** monthly. Polish law lets you overpay; many banks don't charge fees after the first three years (fixed-rate loans may have fees). It gives you flexibility if income drops.
- Ask banks about overpayment rules before choosing.

**Where to keep the savings**

- A joint high-yield savings account, or two individual accounts plus a shared spreadsheet — but you don't want spreadsheets, so a **joint account with automatic transfers** from each of you is simplest.
- Keep the money in low-risk accounts or short-term government bonds; with a two-year horizon, stocks are too volatile.
- Convert to PLN gradually as the purchase approaches.

**Guardrails**

- Keep your own emergency funds separate from the deposit account.
- Re-check the plan every quarter: prices in Kraków, exchange rates, and whether you're on pace.

**Five-minute monthly check, updated**

Add one row to your note: joint deposit balance. That's still the only number you need each month.
""", "partner_reply"),
]),
], [
("What's my monthly take-home pay now?", ["raise"], "update"),
("How much credit card debt did I start the year with, and what's my home-buying timeline?",
 ["income"], "user-fact"),
("What are the balances and rates on my two cards?", ["cards"], "user-fact"),
("How much do I put into my workplace pension, and do I want to change it?", ["cards"],
 "preference"),
("How hands-on do I want to be with tracking my money?", ["lowtouch"], "preference"),
("Where are we planning to buy, and with whom?", ["joint"], "update"),
("How much can my partner save each month, and how do we feel about borrowing?", ["partner"],
 "user-fact"),
("Which debt payoff method did you recommend?", ["phase_plan"], "reply-fact"),
("How much did you suggest keeping as a starter emergency fund?", ["phase_plan"],
 "reply-fact"),
("How did you suggest splitting the extra money from my raise?", ["raise_reply"],
 "reply-fact"),
("What tax did you mention on buying a secondary-market flat in Poland?", ["joint_reply"],
 "reply-fact"),
("What deposit did you suggest we aim for, and by when?", ["partner_reply"], "reply-fact"),
("How did my card A balance change between New Year and April, and how much sooner did you "
 "say both cards would be paid?", ["cards", "raise", "raise_reply"], "multi"),
("What was my plan for buying before my partner and I decided to buy together?", ["income"],
 "temporal"),
("Before the raise, how much a month was going to the credit cards in your plan?", ["phase_plan"],
 "temporal"),
]))

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-10", "Nadia", "en", [
("2025-03-10 11:20", [
U("Our e-commerce site's order search got slow. Postgres 12 on RDS, the orders table has about "
  "40 million rows. The admin search page takes 8-10 seconds.", "slow"),
A(r"""
8–10 seconds on 40 million rows usually means the query is scanning far more of the table than it needs, most often because of a pattern that can't use an index (like `ILIKE '%term%'`), a sort on an unindexed column, or an `OR` across columns. Let's find out which before changing anything.

**Step 1: capture the actual query**

Turn on `pg_stat_statements` (it's available on RDS via the parameter group: add it to `shared_preload_libraries` and reboot) and look at the slowest statements:

```sql
SELECT calls, round(mean_exec_time) AS ms, left(query, 120) AS query
FROM pg_stat_statements
ORDER BY mean_exec_time DESC
LIMIT 10;
```

**Step 2: look at the plan**

Run the search query with real parameters:

```sql
EXPLAIN (ANALYZE, BUFFERS)
SELECT id, customer_email, total, created_at
FROM orders
WHERE customer_email ILIKE '%smith%' OR order_number = 'smith'
ORDER BY created_at DESC
LIMIT 50;
```

What to look for:

- **Seq Scan on orders** with millions of rows removed by filter: no usable index.
- **Sort** with a high `actual time`: the `ORDER BY` isn't served by an index.
- **Buffers: shared read** very high: the data isn't cached, so it's reading from disk.

**Common causes and fixes**

1. **Substring search with `ILIKE '%...%'`**: B-tree indexes can't help. Use a **trigram index** with the `pg_trgm` extension (supported on RDS):

```sql
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX CONCURRENTLY orders_email_trgm
  ON orders USING gin (customer_email gin_trgm_ops);
```

2. **`ORDER BY created_at DESC LIMIT 50`** with filters: an index on `(created_at DESC)` lets Postgres stop after 50 rows, if the filter is selective enough.
3. **`OR` across different columns**: rewrite as `UNION ALL` of separate queries, each with its own index.
4. **Table bloat**: check `n_dead_tup` in `pg_stat_user_tables`. Heavy updates on orders can leave lots of dead rows.

**Don't forget**

Use `CREATE INDEX CONCURRENTLY` on a production table so you don't lock out writes; it takes longer but is safe.

Can you paste the query the admin page runs and the `EXPLAIN (ANALYZE, BUFFERS)` output? That'll tell us exactly which fix applies.
""", "diagnose"),
U("The search lets staff type an email fragment, an order number, or a customer's last name. "
  "Staff mostly search for orders from the last 90 days.", "search_shape"),
A(r"""
That shape of search is very common, and it's good news: "mostly the last 90 days" lets us narrow the scan dramatically. The plan is to split the search by input type, index each path properly, and make recent orders the default.

**Detect the input type in the application**

- Looks like an order number (e.g., digits or a prefix like `ORD-`)? → exact match on `order_number`.
- Contains `@`? → email search.
- Otherwise → last-name search (and maybe email too).

Separate queries are far faster than one query with three `OR` conditions.

**Indexes**

```sql
-- exact order number: a plain unique B-tree (probably exists already)
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS orders_number_key ON orders (order_number);

-- email fragment, restricted to recent orders
CREATE INDEX CONCURRENTLY orders_email_trgm_recent
  ON orders USING gin (customer_email gin_trgm_ops)
  WHERE created_at > '2024-12-01';

-- last name, case-insensitive prefix search
CREATE INDEX CONCURRENTLY orders_lastname_lower
  ON orders (lower(last_name) text_pattern_ops, created_at DESC);
```

A partial index with a fixed date needs rebuilding now and then; another way is an index on `(created_at)` combined with the trigram index, letting Postgres use a BitmapAnd. Test both.

**Queries**

```sql
-- email fragment, default 90 days
SELECT id, order_number, customer_email, total, created_at
FROM orders
WHERE customer_email ILIKE '%' || $1 || '%'
  AND created_at > now() - interval '90 days'
ORDER BY created_at DESC
LIMIT 50;

-- last name prefix
SELECT id, order_number, last_name, total, created_at
FROM orders
WHERE lower(last_name) LIKE lower($1) || '%'
  AND created_at > now() - interval '90 days'
ORDER BY created_at DESC
LIMIT 50;
```

Trigram indexes need at least three characters to be effective, so require a minimum of **3 characters** for the email fragment in the UI.

**UI default**

Make "last 90 days" the default with a checkbox "search all orders". Searches over all 40 million rows are then the exception and can be allowed to take a second or two.

**Expected result**

With these indexes, the 90-day searches should come back in well under 100 ms. Confirm with `EXPLAIN (ANALYZE, BUFFERS)` after creating each index, and watch the index sizes — GIN trigram indexes on 40 million emails can be several gigabytes, which is why the partial version matters.
""", "index_plan"),
U("I prefer to keep logic in SQL and avoid adding a search service like Elasticsearch, our team "
  "of three can't maintain more infrastructure.", "no_es"),
A(r"""
That's a sensible constraint, and for staff-facing order search Postgres is entirely capable. Elasticsearch earns its keep for customer-facing product search with relevance ranking, typo tolerance and facets — not for finding an order by email fragment. With three people, one database is much easier to operate than a database plus a search cluster plus the sync between them.

**Keeping it all in Postgres**

1. **Trigram indexes** (`pg_trgm`) for fragments, as above.
2. **Functional indexes** on `lower(...)` for case-insensitive lookups.
3. **Full-text search** (`tsvector`) if staff later want to search notes or addresses by words.
4. A **SQL function** encapsulating the search logic, so the application just calls it:

```sql
CREATE OR REPLACE FUNCTION search_orders(q text, all_time boolean DEFAULT false)
RETURNS TABLE (id bigint, order_number text, customer_email text, last_name text,
               total numeric, created_at timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT o.id, o.order_number, o.customer_email, o.last_name, o.total, o.created_at
  FROM orders o
  WHERE (
      (q ~ '^ORD-?\d+$' AND o.order_number = upper(q))
   OR (position('@' IN q) > 0 AND o.customer_email ILIKE '%' || q || '%')
   OR (q !~ '@' AND q !~ '^ORD' AND lower(o.last_name) LIKE lower(q) || '%')
  )
  AND (all_time OR o.created_at > now() - interval '90 days')
  ORDER BY o.created_at DESC
  LIMIT 50;
$$;
```

A single function with `OR` across branches can confuse the planner, because it can't know which branch applies ahead of time. If `EXPLAIN` shows a poor plan, write it as **PL/pgSQL with an `IF` per input type**, each running its own query. Planning happens per branch, so each uses its index.

**Maintenance that keeps it fast**

- **Autovacuum tuning** on `orders`: with 40 million rows, the default scale factor (20%) means vacuum waits for 8 million dead rows. Set per-table:

```sql
ALTER TABLE orders SET (autovacuum_vacuum_scale_factor = 0.02,
                        autovacuum_analyze_scale_factor = 0.01);
```

- **Monitor index bloat** a few times a year and `REINDEX CONCURRENTLY` (available since Postgres 12) if needed.
- **Keep `pg_stat_statements` on** and check the top queries monthly — 10 minutes of work.

**Tests**

Put the search function's expected behaviour in a small SQL test file run in CI against a seeded database: an order number finds exactly one row, an email fragment finds the right customer, a short query is rejected. It protects the logic when someone edits it later.
""", "sql_func"),
]),
("2025-04-21 10:05", [
U("We upgraded RDS to Postgres 16 over the weekend. Search is fast now, mostly under 50 ms. "
  "Next problem: the nightly sales report job takes 40 minutes.", "pg16"),
A(r"""
Great result on the search, and the upgrade to Postgres 16 opens up some useful features for the report job too. A 40-minute nightly report usually means it recomputes everything from raw orders each night. The fix is typically to aggregate incrementally or precompute.

**First, measure**

Find which statements dominate:

```sql
SELECT calls, round(total_exec_time / 1000) AS total_s, round(mean_exec_time) AS mean_ms,
       left(query, 100)
FROM pg_stat_statements
WHERE query ILIKE '%order%'
ORDER BY total_exec_time DESC
LIMIT 10;
```

Run the heaviest one with `EXPLAIN (ANALYZE, BUFFERS)`. Typical culprits: full scans of `orders` and `order_items` with large hash joins, a `GROUP BY` over millions of rows, or queries run once per product in a loop from the application.

**Option 1: a daily summary table**

If the report is "sales by day, product and channel", keep a summary table updated incrementally:

```sql
CREATE TABLE daily_sales (
  day date, product_id bigint, channel text,
  units bigint, revenue numeric(14,2),
  PRIMARY KEY (day, product_id, channel)
);

-- nightly: only yesterday (and a few days back for late changes)
INSERT INTO daily_sales (day, product_id, channel, units, revenue)
SELECT o.created_at::date, i.product_id, o.channel, sum(i.qty), sum(i.qty * i.price)
FROM orders o JOIN order_items i ON i.order_id = o.id
WHERE o.created_at >= current_date - 3 AND o.created_at < current_date
GROUP BY 1, 2, 3
ON CONFLICT (day, product_id, channel)
DO UPDATE SET units = EXCLUDED.units, revenue = EXCLUDED.revenue;
```

Reports then read from `daily_sales`, which is tiny compared to the raw tables. The nightly job touches three days of data instead of years.

**Option 2: materialized view**

Simpler, but `REFRESH MATERIALIZED VIEW` recomputes everything each time; it's fine for small data, not for 40 million orders.

**Postgres 16 helps**

- Better **parallel** hash joins and aggregates; check `max_parallel_workers_per_gather` in the parameter group (2–4 is reasonable for a report job).
- **Incremental sort** and improved planning for `GROUP BY` with partial ordering.

**Indexes for the report**

An index on `orders (created_at)` (probably exists) and `order_items (order_id)` are essential for the incremental approach.

**Late changes**

Refunds and edits to older orders: recomputing the last three days covers most cases. For refunds that arrive later, record them as separate negative rows by refund date, or recompute the affected day when a refund is processed.

With a summary table, expect the nightly job to drop from 40 minutes to a minute or two.
""", "report_plan"),
U("I like the summary table idea. We have about 1,200 products and 3 channels. One thing: "
  "finance needs revenue in both EUR and USD, and the exchange rate has to be that day's rate.",
  "currency"),
A(r"""
1,200 products × 3 channels × 365 days is about 1.3 million rows a year in `daily_sales` — tiny for Postgres, and reports over it will be instant. Adding currencies correctly is mostly about storing the rate you used, not recalculating later.

**Exchange rate table**

```sql
CREATE TABLE fx_rates (
  day date PRIMARY KEY,
  eur_usd numeric(12,6) NOT NULL,   -- 1 EUR = x USD
  source text NOT NULL,             -- e.g. 'ECB reference rate'
  fetched_at timestamptz NOT NULL DEFAULT now()
);
```

Load it daily from a reliable source, such as the **European Central Bank's reference rates**, published each working day around 16:00 CET. Weekends and holidays have no ECB rate: use the most recent previous rate, and record that you did (finance will ask).

**Summary table with both currencies**

Assuming orders are stored in EUR:

```sql
ALTER TABLE daily_sales
  ADD COLUMN revenue_eur numeric(14,2),
  ADD COLUMN revenue_usd numeric(14,2),
  ADD COLUMN eur_usd numeric(12,6);

INSERT INTO daily_sales (day, product_id, channel, units, revenue_eur, revenue_usd, eur_usd)
SELECT d.day, d.product_id, d.channel, d.units, d.rev,
       round(d.rev * r.eur_usd, 2), r.eur_usd
FROM (
  SELECT o.created_at::date AS day, i.product_id, o.channel,
         sum(i.qty) AS units, sum(i.qty * i.price) AS rev
  FROM orders o JOIN order_items i ON i.order_id = o.id
  WHERE o.created_at >= current_date - 3 AND o.created_at < current_date
  GROUP BY 1, 2, 3
) d
JOIN LATERAL (
  SELECT eur_usd FROM fx_rates WHERE day <= d.day ORDER BY day DESC LIMIT 1
) r ON true
ON CONFLICT (day, product_id, channel) DO UPDATE
SET units = EXCLUDED.units, revenue_eur = EXCLUDED.revenue_eur,
    revenue_usd = EXCLUDED.revenue_usd, eur_usd = EXCLUDED.eur_usd;
```

Storing `eur_usd` on each row means that if a rate is corrected later, you can see which rate a report used.

**Rounding**

Convert at the **daily aggregate** level (as above), not per order line, and round to 2 decimals only at the end. Agree this with finance — per-line conversion gives slightly different totals, and they should know which one they're getting.

**Time zones**

`created_at::date` uses the session time zone. Decide which day boundary finance uses (probably Europe/Berlin or UTC) and make it explicit: `(o.created_at AT TIME ZONE 'Europe/Berlin')::date`.

**Job order**

Load the exchange rate first, then compute the summary. Since ECB rates arrive in the afternoon, run the nightly job after midnight so yesterday's rate is always there.
""", "fx_reply"),
U("Finance just told me orders are actually stored in the currency the customer paid in: EUR, "
  "USD or GBP, with a currency column. Not all EUR like I assumed.", "multicur"),
A(r"""
Good that it came up before finance started using the numbers. Multiple source currencies change the conversion step: each order line has to be converted from its own currency, at that day's rate, into both EUR and USD. The summary table still works; it just needs more rates and a conversion per currency.

**Rates table for several currencies**

Store rates against a single base (EUR is natural with ECB data):

```sql
CREATE TABLE fx_rates (
  day date NOT NULL,
  currency char(3) NOT NULL,        -- 'USD', 'GBP', 'EUR'
  per_eur numeric(14,6) NOT NULL,   -- 1 EUR = per_eur units of currency
  source text NOT NULL,
  PRIMARY KEY (day, currency)
);
```

Insert a row with `per_eur = 1` for EUR each day so the joins are uniform. Converting an amount from currency X to EUR: `amount / per_eur(X)`. To USD: `amount / per_eur(X) * per_eur(USD)`.

**Aggregation**

Group by currency first, then convert:

```sql
WITH by_cur AS (
  SELECT (o.created_at AT TIME ZONE 'Europe/Berlin')::date AS day,
         i.product_id, o.channel, o.currency,
         sum(i.qty) AS units, sum(i.qty * i.price) AS rev
  FROM orders o JOIN order_items i ON i.order_id = o.id
  WHERE o.created_at >= current_date - 3 AND o.created_at < current_date
  GROUP BY 1, 2, 3, 4
)
SELECT b.day, b.product_id, b.channel,
       sum(b.units) AS units,
       round(sum(b.rev / fx.per_eur), 2) AS revenue_eur,
       round(sum(b.rev / fx.per_eur * usd.per_eur), 2) AS revenue_usd
FROM by_cur b
JOIN LATERAL (SELECT per_eur FROM fx_rates
              WHERE currency = b.currency AND day <= b.day
              ORDER BY day DESC LIMIT 1) fx ON true
JOIN LATERAL (SELECT per_eur FROM fx_rates
              WHERE currency = 'USD' AND day <= b.day
              ORDER BY day DESC LIMIT 1) usd ON true
GROUP BY 1, 2, 3;
```

**Keep the original amounts too**

Add a second summary table, `daily_sales_by_currency (day, product_id, channel, currency, units, revenue)`, with amounts in the original currency. Finance often needs to reconcile against payment provider payouts, which are per currency.

**Don't store a single rate column**

The `eur_usd` column from the previous design no longer makes sense; instead, store rates in `fx_rates` and keep it immutable. If a rate is corrected, insert a new version with a `revised_at` column rather than updating in place.

**Validate**

For one day, compute totals by hand from raw orders in each currency and compare with the summary. Do it for a weekend day too, to check the fallback to Friday's rate.
""", "multicur_reply"),
]),
], [
("What database version were we running when search got slow?", ["slow"], "user-fact"),
("Which database version are we on now?", ["pg16"], "update"),
("How many rows are in our orders table?", ["slow"], "user-fact"),
("What can staff type into the order search, and which time range do they usually need?",
 ["search_shape"], "user-fact"),
("Where do I prefer the search logic to live, and why no Elasticsearch?", ["no_es"],
 "preference"),
("What currencies are orders stored in?", ["multicur"], "update"),
("How many products and sales channels do we have?", ["currency"], "user-fact"),
("Which Postgres extension did you suggest for matching email fragments?", ["diagnose"],
 "reply-fact"),
("What minimum search length did you recommend for email fragments?", ["index_plan"],
 "reply-fact"),
("What autovacuum scale factor did you suggest for the orders table?", ["sql_func"],
 "reply-fact"),
("Which source of exchange rates did you recommend?", ["fx_reply"], "reply-fact"),
("How long did the nightly report take, and how long did you expect it to take with the "
 "summary table?", ["pg16", "report_plan"], "multi"),
("What did I assume about order currencies before finance corrected me, and what did you say "
 "to do with the single rate column?", ["currency", "multicur_reply"], "multi"),
("What was the first performance problem I brought to you?", ["slow"], "temporal"),
]))

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-11", "Kevin", "en", [
("2025-09-01 21:45", [
U("I've written Java for eight years and want to move into a Go role. I have an interview loop "
  "at a fintech in six weeks.", "java8"),
A(r"""
Eight years of Java is a great base for Go: you already know concurrency concepts, HTTP services, testing and production debugging. What changes is mostly style — Go is deliberately small, and experienced Java developers sometimes over-engineer it. Six weeks is enough to get interview-ready if you focus.

**What feels different coming from Java**

- **No classes or inheritance.** Structs with methods, and small interfaces satisfied implicitly. You don't declare `implements`; if a type has the methods, it satisfies the interface.
- **Errors are values.** No exceptions; functions return `(result, error)` and you check `if err != nil`. Wrap errors with context: `fmt.Errorf("loading account %d: %w", id, err)`.
- **Composition over hierarchy.** Embed structs instead of extending classes.
- **Small standard library-first style.** `net/http`, `encoding/json`, `database/sql` and `testing` cover a lot; Go teams are wary of large frameworks (no Spring equivalent is expected).
- **Goroutines and channels** instead of thread pools and futures.
- **Generics** exist since Go 1.18 but are used sparingly.
- **Formatting is not a discussion:** `gofmt` decides.

**Six-week plan**

| Week | Focus |
|---|---|
| 1 | Syntax, slices and maps, structs, interfaces, errors; *A Tour of Go*; small exercises |
| 2 | `net/http` service, JSON, `database/sql` with Postgres, table-driven tests |
| 3 | Concurrency: goroutines, channels, `select`, `context`, `sync`, `errgroup` |
| 4 | Project work: a realistic service with tests; profiling with `pprof` |
| 5 | gRPC, middleware/interceptors, configuration, graceful shutdown |
| 6 | Interview practice: coding problems in Go, system design, code review of your own project |

**Idiomatic code in one example**

```go
type AccountStore interface {
    Get(ctx context.Context, id int64) (Account, error)
}

func Balance(ctx context.Context, s AccountStore, id int64) (int64, error) {
    acc, err := s.Get(ctx, id)
    if err != nil {
        return 0, fmt.Errorf("balance for %d: %w", id, err)
    }
    return acc.BalanceCents, nil
}
```

Note: interface defined where it's *used*, `context.Context` as first argument, money as integer cents, errors wrapped with `%w`.

**Interview-specific**

Fintech Go interviews commonly include: a coding exercise (often in Go specifically), a concurrency question (e.g., implementing a worker pool or rate limiter), system design (a payments or ledger service), and questions about correctness — idempotency, consistency, money handling.

How do you like to learn, and how much time do you have each week? I'll shape the plan around it.
""", "plan6"),
U("I learn by building things, not by watching videos. I can do about an hour each weeknight, "
  "and longer on Sundays.", "learnstyle"),
A(r"""
Then let's make the whole plan one project that grows each week, with the reading only as needed. About five hours on weeknights plus a longer Sunday session gives roughly 9–10 hours a week, which is enough.

**The project: a small ledger service**

A double-entry ledger fits a fintech interview perfectly — it touches money handling, consistency, concurrency and APIs — and you can talk about it in the interview.

Features, growing week by week:

1. **Week 1:** in-memory accounts and transfers, with table-driven tests.
2. **Week 2:** HTTP API with `net/http`, JSON, and Postgres storage via `pgx`. Transfers in a database transaction.
3. **Week 3:** idempotency keys on transfers; concurrent transfer tests with the race detector.
4. **Week 4:** gRPC API alongside HTTP; graceful shutdown; structured logging with `log/slog`.
5. **Week 5:** profiling under load (`pprof`), a background worker for statements.
6. **Week 6:** polish, README, and practice explaining design decisions.

**Weekly rhythm**

- **Weeknights (1 hour):** one small, finishable task. E.g., "add the transfer endpoint" or "write tests for insufficient funds."
- **Sunday (3–4 hours):** the bigger step — new layer, refactoring, or a harder concept like concurrency.
- Keep a `NOTES.md` in the repo: what you learned, what surprised you vs Java. Great material for interview answers.

**Starting code**

```go
package ledger

import (
    "errors"
    "sync"
)

var ErrInsufficientFunds = errors.New("insufficient funds")

type Ledger struct {
    mu       sync.Mutex
    balances map[string]int64 // cents
}

func New() *Ledger { return &Ledger{balances: make(map[string]int64)} }

func (l *Ledger) Transfer(from, to string, amount int64) error {
    if amount <= 0 {
        return errors.New("amount must be positive")
    }
    l.mu.Lock()
    defer l.mu.Unlock()
    if l.balances[from] < amount {
        return ErrInsufficientFunds
    }
    l.balances[from] -= amount
    l.balances[to] += amount
    return nil
}
```

**Table-driven test**

```go
func TestTransfer(t *testing.T) {
    tests := []struct {
        name    string
        start   int64
        amount  int64
        wantErr error
    }{
        {"ok", 100, 40, nil},
        {"insufficient", 10, 40, ErrInsufficientFunds},
    }
    for _, tt := range tests {
        t.Run(tt.name, func(t *testing.T) {
            l := New()
            l.balances["a"] = tt.start
            err := l.Transfer("a", "b", tt.amount)
            if !errors.Is(err, tt.wantErr) {
                t.Fatalf("got %v, want %v", err, tt.wantErr)
            }
        })
    }
}
```

Reading to go with it: *Effective Go* in small pieces, and the standard library docs for whatever package you're using that evening.
""", "project"),
U("The recruiter said the team uses gRPC and everything runs on Kubernetes.", "grpc"),
A(r"""
Good to know — that makes the gRPC week of the project more important, and a little Kubernetes awareness useful for the system design conversation. You don't need to become a Kubernetes expert for a Go developer role, but you should know how a Go service behaves well inside it.

**gRPC in Go**

Use **buf** to manage protobuf files and generate code; it's simpler than calling `protoc` directly and includes linting and breaking-change checks.

```protobuf
syntax = "proto3";
package ledger.v1;
option go_package = "example.com/ledger/gen/ledger/v1;ledgerv1";

service LedgerService {
  rpc Transfer(TransferRequest) returns (TransferResponse);
  rpc GetBalance(GetBalanceRequest) returns (GetBalanceResponse);
}

message TransferRequest {
  string idempotency_key = 1;
  string from_account = 2;
  string to_account = 3;
  int64 amount_cents = 4;
}
message TransferResponse { string transfer_id = 1; }
message GetBalanceRequest { string account = 1; }
message GetBalanceResponse { int64 balance_cents = 1; }
```

`buf.gen.yaml` with the `protocolbuffers/go` and `grpc/go` plugins, then `buf generate`.

Server skeleton:

```go
type server struct {
    ledgerv1.UnimplementedLedgerServiceServer
    store *Store
}

func (s *server) Transfer(ctx context.Context, req *ledgerv1.TransferRequest) (*ledgerv1.TransferResponse, error) {
    id, err := s.store.Transfer(ctx, req.GetIdempotencyKey(), req.GetFromAccount(),
        req.GetToAccount(), req.GetAmountCents())
    if errors.Is(err, ErrInsufficientFunds) {
        return nil, status.Error(codes.FailedPrecondition, "insufficient funds")
    }
    if err != nil {
        return nil, status.Error(codes.Internal, "transfer failed")
    }
    return &ledgerv1.TransferResponse{TransferId: id}, nil
}
```

Things interviewers like to hear about: mapping domain errors to **gRPC status codes**, **deadlines** propagated through `context`, **interceptors** for logging, metrics and authentication, and why you embed `Unimplemented...Server` (forward compatibility).

**Go services on Kubernetes**

- **Health checks:** implement the standard gRPC health service (`google.golang.org/grpc/health`) so Kubernetes liveness and readiness probes can use it.
- **Graceful shutdown:** on `SIGTERM`, stop accepting new requests, finish in-flight ones with `grpcServer.GracefulStop()`, within the pod's termination grace period (30 seconds by default).
- **Configuration** from environment variables.
- **Resource limits:** set `GOMAXPROCS` to match the CPU limit (the `automaxprocs` package does it automatically) and consider `GOMEMLIMIT` for the memory limit.
- **Structured logs** to stdout with `log/slog` in JSON.

These points are short but they show you've run Go in production-like settings.
""", "grpc_reply"),
]),
("2025-09-14 22:10", [
U("Plot twist: the interview got moved up, it's now three weeks from today instead of six. The "
  "hiring manager is going on leave.", "three_weeks"),
A(r"""
Three weeks is still workable — you've already done two weeks of the project. We'll compress by cutting what's least likely to come up and doubling down on what almost certainly will.

**What to keep**

1. **Concurrency** — goroutines, channels, `select`, `context`, `sync.Mutex`, `errgroup`. Almost every Go interview has a concurrency question.
2. **Error handling and idiomatic code** — interviewers notice Java habits quickly.
3. **Testing** — table-driven tests, the race detector, testing with interfaces rather than mocks frameworks.
4. **gRPC basics** — since the team uses it: one working endpoint, status codes, deadlines.
5. **System design** — a payments/ledger design, which your project already prepares.

**What to drop**

- The **Kubernetes details** beyond graceful shutdown and health checks. Mention them in design discussions, but don't spend practice time.
- **pprof and load testing** — nice to have; skip unless you have time left.
- The background **statement worker** from week 5.

**Three-week plan**

| Week | Weeknights | Sunday |
|---|---|---|
| 1 (Sep 15–21) | Concurrency exercises: worker pool, fan-in/fan-out, timeouts with context | Add concurrent-safe transfers with idempotency to the ledger; run with `-race` |
| 2 (Sep 22–28) | gRPC endpoint + interceptor; 2 coding problems per night in Go | Mock system design: "design a payments ledger" out loud, 45 min |
| 3 (Sep 29–Oct 5) | Review NOTES.md, practice explaining the project; light coding problems | Rest, short review only |

**Coding problems in Go**

Practice with typical interview problems (hash maps, two pointers, BFS/DFS, heaps), but write them **in Go**, because the differences show up in small things:

- `container/heap` requires implementing an interface — practice it once before the interview.
- Slices share backing arrays; `append` can surprise you.
- `sort.Slice` and the newer `slices.Sort` / `slices.SortFunc`.
- Strings are bytes; iterate with `for _, r := range s` for runes.

**Interview-day details**

- Ask whether the coding round allows looking up standard library docs.
- Talk through trade-offs: "In Java I'd use a ConcurrentHashMap here; in Go I'd use a mutex-protected map, or sync.Map only if access patterns fit."

Your project is your strongest asset: have the repo ready to share, with a clean README.
""", "compressed"),
U("Concurrency is honestly my weak spot. In Java I always used an ExecutorService and never "
  "really had to think about it.", "concurrency"),
A(r"""
That's common — ExecutorService hides a lot. Go makes concurrency more explicit, which is actually easier to reason about once you know a few patterns. Let's cover the ones that come up in interviews, mapped to what you know from Java.

**Mapping**

| Java | Go |
|---|---|
| `Thread` / `Runnable` | `go f()` (a goroutine) |
| `ExecutorService` with N threads | N goroutines reading from a channel (worker pool) |
| `Future<T>` | a channel of results, or `errgroup` |
| `CountDownLatch` | `sync.WaitGroup` |
| `synchronized` / `ReentrantLock` | `sync.Mutex` |
| `Thread.interrupt()` / timeouts | `context.Context` cancellation |

**Worker pool (the most common interview exercise)**

```go
func process(ctx context.Context, jobs []Job, workers int) ([]Result, error) {
    in := make(chan Job)
    out := make(chan Result)
    g, ctx := errgroup.WithContext(ctx)

    g.Go(func() error {
        defer close(in)
        for _, j := range jobs {
            select {
            case in <- j:
            case <-ctx.Done():
                return ctx.Err()
            }
        }
        return nil
    })

    var wg sync.WaitGroup
    for i := 0; i < workers; i++ {
        wg.Add(1)
        g.Go(func() error {
            defer wg.Done()
            for j := range in {
                r, err := handle(ctx, j)
                if err != nil {
                    return err // cancels ctx for everyone
                }
                select {
                case out <- r:
                case <-ctx.Done():
                    return ctx.Err()
                }
            }
            return nil
        })
    }
    go func() { wg.Wait(); close(out) }()

    var results []Result
    for r := range out {
        results = append(results, r)
    }
    return results, g.Wait()
}
```

**Key ideas to be able to explain**

- **Who closes a channel:** the sender, never the receiver. Closing signals "no more values".
- **`errgroup`** (`golang.org/x/sync/errgroup`): run goroutines, return the first error, cancel the others through the context. It's the closest thing to `invokeAll` with failure handling.
- **Every blocking send or receive should also watch `ctx.Done()`**, or a cancelled request leaks goroutines.
- **Goroutine leaks** are the Go equivalent of thread leaks: a goroutine blocked forever on a channel nobody reads.
- **The race detector:** `go test -race ./...` finds unsynchronized access. Run it on everything.

**Practice list for this week**

1. Worker pool with bounded parallelism (above).
2. A rate limiter with `time.Ticker` or `golang.org/x/time/rate`.
3. Fetch three services in parallel with a 200 ms overall timeout.
4. A concurrent-safe cache with `sync.RWMutex`.

Do each from scratch twice; the second time without looking.
""", "conc_reply"),
U("Small thing: I'd rather use GoLand than VS Code. My hands know the IntelliJ shortcuts.",
  "goland"),
A(r"""
Makes sense — with three weeks to go, fighting an unfamiliar editor is wasted time. GoLand is built on the IntelliJ platform, so your keymap, refactorings and navigation habits transfer almost entirely. A few settings make it work the way Go developers expect.

**Formatting and imports**

- **Settings → Tools → Actions on Save:** enable "Reformat code" and "Optimize imports". GoLand uses `gofmt` rules; choose **goimports** behaviour so imports are grouped and unused ones removed.
- Don't customize formatting — Go code is expected to be gofmt-formatted, and interviewers notice.

**Linting**

- Install **golangci-lint** and enable GoLand's golangci-lint integration (built in recent versions, or via the plugin). A small `.golangci.yml`:

```yaml
linters:
  enable:
    - errcheck
    - govet
    - staticcheck
    - ineffassign
    - unused
    - gosec
```

`errcheck` is especially useful coming from Java: it catches ignored errors, the most common mistake for newcomers.

**Running tests**

- The gutter icons run single tests or subtests from table-driven tests.
- Add `-race` to the default test configuration: **Run → Edit Configurations → Templates → Go Test → Go tool arguments: `-race`**.
- Coverage runs show coverage inline — helpful for the ledger project.

**Debugging goroutines**

GoLand's debugger (Delve underneath) shows all goroutines and their stacks. When practicing the worker pool, pause the program and look at the goroutines view — it's the fastest way to understand deadlocks and leaks.

**Useful shortcuts you already know**

- Go to implementation (works for implicit interfaces: shows every type that satisfies one).
- Extract method/variable, rename.
- Generate: **Alt+Insert** / **Cmd+N** can generate constructors, test files, and "implement methods" for an interface — handy and very Java-like.

**Live templates**

- `err` + Tab expands to `if err != nil { return err }` style — customize it to wrap errors with `fmt.Errorf("...: %w", err)`.
- `forr` for range loops.

**For the interview**

If the coding round uses a browser editor, practice a few problems without autocomplete, because GoLand will fill in a lot that you need to type yourself there.
""", "goland_reply"),
]),
], [
("How many years have I worked with Java?", ["java8"], "user-fact"),
("How soon is my interview now?", ["three_weeks"], "update"),
("How do I prefer to learn a new language?", ["learnstyle"], "preference"),
("How much study time do I have on weekdays?", ["learnstyle"], "user-fact"),
("What technologies does the team I'm interviewing with use?", ["grpc"], "user-fact"),
("Which part of Go am I least confident about?", ["concurrency"], "user-fact"),
("Which editor do I want to use for Go, and why?", ["goland"], "preference"),
("What practice project did you suggest I build?", ["project"], "reply-fact"),
("Which tool did you recommend for generating code from protobuf files?", ["grpc_reply"],
 "reply-fact"),
("Which package did you suggest for running goroutines that should fail and cancel "
 "together?", ["conc_reply"], "reply-fact"),
("Which linter did you say catches ignored errors?", ["goland_reply"], "reply-fact"),
("Why did the interview move, and what did you cut from the study plan as a result?",
 ["three_weeks", "compressed"], "multi"),
("When I first asked for help, how long did I have until the interview?", ["java8"],
 "temporal"),
("Given the IDE I prefer, how did you suggest running tests with the race detector?",
 ["goland", "goland_reply"], "multi"),
]))

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-12", "Amara", "en", [
("2025-03-22 17:00", [
U("I accepted a job in Berlin and I'm moving from Toronto. Start date is June 1. I'm Canadian "
  "with no EU passport.", "job"),
A(r"""
Congratulations on the job! Canadians have it relatively easy: you can enter Germany without a visa and apply for your residence permit after arrival, though for a job starting June 1 it's worth starting paperwork now. Here's the path most skilled workers from Canada follow.

**Residence permit: EU Blue Card**

If your salary meets the threshold (for 2025 about €48,300 gross a year, or about €43,760 for shortage occupations such as IT and engineering, and for recent graduates), the **EU Blue Card** is usually the best option:

- Faster route to permanent residence (possible after 27 months, or 21 months with B1 German).
- Easy family reunification.
- Changing employers is straightforward after the first year (with notification).

If the salary is below the threshold, a regular skilled-worker residence permit (§18a/§18b) works too.

**Two ways to apply**

1. **Visa from Canada before you move**: apply at the German consulate in Toronto for a national D visa for employment. Appointments can take weeks to months.
2. **Enter visa-free and apply in Berlin**: Canadians may enter Germany without a visa and apply for the residence permit at the Landesamt für Einwanderung (LEA) in Berlin within 90 days. You can't start working until the permit (or a provisional document) is granted, so timing matters.

Ask your employer which they prefer — many Berlin companies use the **fast-track procedure for skilled workers** (beschleunigtes Fachkräfteverfahren), where the employer applies to the immigration office on your behalf and the consulate appointment follows quickly.

**Documents to prepare**

- Passport (valid well beyond your planned stay).
- Signed employment contract and a job description.
- University degree; for a Blue Card it must be recognized — check **anabin** for your university and degree, or apply for a statement of comparability from the ZAB.
- CV, biometric photos.
- Proof of health insurance from your start date.
- A German address (registration, "Anmeldung") for the application in Berlin.

**After arrival**

1. **Anmeldung** (address registration) within 14 days at a Bürgeramt — book the appointment online as early as possible.
2. **Tax ID** arrives by post a few weeks after registration.
3. **Bank account**, health insurance (public, e.g. TK or AOK, or private), and the residence permit appointment.

Tell me what else is moving with you and what kind of place you're hoping to live in, and we'll build the timeline.
""", "visa"),
U("I'm bringing my dog Milo, a 30 kg Labrador. He's never flown and I'm honestly nervous "
  "about it.", "dog"),
A(r"""
It's completely normal to be nervous — a 30 kg dog will fly in the hold (as checked baggage or cargo), which feels like a big deal. Many dogs do it every year without problems, and careful preparation makes a real difference.

**EU import requirements (from Canada)**

1. **Microchip** (ISO 11784/11785, 15 digits) — implanted *before* the rabies vaccine.
2. **Rabies vaccination** at least **21 days** before travel (after the microchip).
3. **EU animal health certificate** completed by your vet and **endorsed by the CFIA** (Canadian Food Inspection Agency), within 10 days before arrival in the EU.
4. No rabies titer test is required for dogs coming from Canada.

**Flying a 30 kg dog**

- Airlines limit cabin pets to about 8 kg including carrier, so Milo will travel in the hold. **Direct flights** are much better: Air Canada and Lufthansa partners fly Toronto to Frankfurt or Munich, with a train or connection to Berlin; some seasons have direct Toronto–Berlin service — check current routes.
- **Crate**: IATA-compliant hard-shell crate, tall enough for him to stand without his head touching the top, and long enough to turn around. For a Labrador, that's typically a "giant" or "XL" crate (around 100 × 70 × 75 cm). Check that the airline accepts that size on your aircraft.
- **Crate training starts now**: feed meals in the crate, short closed-door periods, then longer. A dog comfortable in his crate is much calmer in flight.
- **No sedation** — airlines and vets advise against it, because it affects breathing and balance at altitude.
- Attach a water bowl accessible from outside, a familiar blanket, and your contact details.

**Berlin dog rules**

- **Dog registration** in the central Berlin dog register (Hunderegister) and a **dog tax** (Hundesteuer) of €120 a year for the first dog.
- **Liability insurance** (Hundehaftpflichtversicherung) is **mandatory** in Berlin — roughly €50–100 a year.
- Dogs must be leashed in many public places; off-leash areas exist in large parks. Berlin also has a "dog license" (Sachkundenachweis) rule for new owners, though experienced owners who have had a dog for a while are often exempt; check the current rules.

**Finding a flat with a dog**

Many German leases require landlord consent for dogs. Mention Milo up front, and bring a "pet CV": photo, age, training, references from your Toronto landlord.
""", "dog_reply"),
U("Rent budget is max €1,800 warm. I'd love a quiet area near a big park for Milo. The office "
  "is in Mitte.", "rent"),
A(r"""
€1,800 warm (Warmmiete, including heating and service charges) is a workable budget in Berlin for a one- or two-room flat, though the market is very competitive. A big park within walking distance and a commute to Mitte under 30–40 minutes narrows it down to a few good areas.

**Neighborhoods to look at**

| Area | Park | Commute to Mitte | Notes |
|---|---|---|---|
| **Friedrichshain** (north, near Volkspark) | Volkspark Friedrichshain | 15–20 min | Lively but the streets around the park are calmer |
| **Prenzlauer Berg** | Mauerpark, Volkspark Friedrichshain | 10–20 min | Family-friendly, pricier |
| **Pankow** | Bürgerpark, Schlosspark | 25–30 min | Quiet, greener, better value |
| **Schöneberg / Friedenau** | Tempelhofer Feld nearby | 25 min | Quiet residential streets |
| **Treptow** | Treptower Park, Plänterwald | 25 min | Along the river, good for dogs |
| **Moabit** | Tiergarten | 10–15 min | Central, mixed |

For a dog and quiet, **Pankow** and **Treptow** give the best value, and the streets near **Volkspark Friedrichshain** are a good compromise if you want to be closer to the center.

**How renting works in Berlin**

- Listings on ImmoScout24, Immowelt and Kleinanzeigen. Good flats get hundreds of enquiries in hours; set up instant alerts.
- Landlords usually ask for a **Schufa** credit report (you won't have a German one at first — offer a Canadian credit report and your employment contract), the last three pay slips (or the contract, with salary), a copy of your passport, and a **Mietschuldenfreiheitsbescheinigung** (proof of no rent arrears) from your previous landlord.
- Deposit (Kaution) is up to three months' cold rent.
- Unfurnished flats in Germany sometimes come without a kitchen; check "Einbauküche" in the listing.

**Start with a furnished temporary place**

Most people moving from abroad rent a **furnished flat for 2–3 months** first (Wunderflats, HousingAnywhere), register there, and look for a permanent flat once they have a German bank account, address and pay slips. Confirm that the temporary landlord provides the **Wohnungsgeberbestätigung** (landlord confirmation) needed for registration.

**Budget tip**

Ask whether the warm rent includes electricity — it usually doesn't. Budget another €40–60 a month for electricity and €30–40 for internet.
""", "hoods"),
]),
("2025-04-26 18:30", [
U("The start date moved to July 1, the company needed more time for the paperwork.", "july"),
A(r"""
An extra month helps: more time for the residence permit process, the dog's health certificate and the flat search. There's one important catch with a July move, though — summer heat and flying dogs.

**Summer flight restrictions for dogs**

Many airlines apply **heat embargoes** for animals in the hold, usually when temperatures at departure, connection or arrival airports exceed about 29°C (85°F). Some don't accept pets in the hold at all from late May to mid-September on certain routes. Lufthansa and Air Canada have specific rules; check them before booking.

What to do:

- **Book the earliest morning or overnight flight** possible — cooler on the tarmac at both ends.
- **Fly direct** if at all possible; connections are where dogs wait on hot ramps.
- Consider flying **Milo in mid-to-late June**, a couple of weeks before your start, rather than in July, when heat is more likely.
- Ask the airline about climate-controlled handling and whether they'll confirm acceptance of a 30 kg dog in an XL crate on that aircraft.
- As a backup, a **pet relocation service** can handle routing and paperwork, at a cost (often CAD 3,000–6,000 for a large dog).

**Revised timeline**

| When | Task |
|---|---|
| Now – mid-May | Employer's fast-track application; degree recognition (anabin/ZAB) |
| May | Consulate visa appointment if needed; check Milo's microchip and rabies dates |
| Late May | Book flight with dog acceptance confirmed; book temporary furnished flat from mid-June |
| Early June | Crate training daily; vet visit for the EU health certificate within 10 days of arrival |
| Mid-June | Fly with Milo; Anmeldung appointment in the first week |
| Late June | Bank account, health insurance, dog registration, liability insurance, dog tax |
| July 1 | Start work |
| July–September | Permanent flat search with pay slips in hand |

**Health certificate timing**

The EU health certificate must be issued within 10 days before arrival and then endorsed by the CFIA, which sometimes takes a few days — book both appointments as soon as your flight is fixed.

**Anmeldung**

Book the Bürgeramt appointment online now for the week you arrive; slots can be weeks out. Arriving in mid-June gives you time to register before the job starts.
""", "july_reply"),
U("I don't speak any German yet. I'd like an evening course, I am really not a morning person.",
  "german"),
A(r"""
Evening courses are very common in Berlin — most people learning German work during the day. Going from zero to a basic everyday level (A1–A2) in your first six months is realistic with a regular course.

**Options for evening courses**

- **Volkshochschule (VHS)**: Berlin's adult education centers, run by each district. Evening courses, typically twice a week from 18:00 or 18:30, very affordable (often €150–300 for a 10–15 week course). Popular — register early.
- **Goethe-Institut Berlin**: high quality, more expensive; intensive and extensive (evening) courses.
- **Private schools** (e.g., in Mitte and Kreuzberg): small groups, flexible start dates, evening options, mid-range prices.
- **Integration course** (Integrationskurs): subsidized by the BAMF, with 600 hours of language plus an orientation course. As a Blue Card holder you may be eligible on request; many integration courses are daytime, but some providers offer evening ones.

**Before you move**

Start now with a self-study base so the first course isn't from zero:

- 20–30 minutes a day with an app or a beginner textbook.
- Learn pronunciation and basic phrases: greetings, ordering food, asking for directions, talking about Milo ("Darf ich meinen Hund mitbringen?" — may I bring my dog?).
- Some Berlin schools offer **online evening courses** you could join from Toronto in May or June.

**Timeline**

- **Until July**: self-study, maybe an online A1.1 course.
- **From July/August**: evening A1 course twice a week.
- **By early 2026**: A2; **by mid-2026**: B1 if you continue steadily.

B1 is worth aiming for: with a Blue Card, B1 German shortens the path to permanent residence from 27 to 21 months.

**Practical tips**

- Berlin is easy to live in with English, which is both a blessing and a trap. Set a rule like ordering at the bakery in German.
- **Tandem partners**: apps and meetups pair you with Germans learning English.
- Dog parks are great for practice — dog owners talk to each other.
""", "german_reply"),
U("Found a furnished sublet in Friedrichshain for the first three months: €1,650 warm, a few "
  "streets from Volkspark Friedrichshain, and the landlord is fine with Milo.", "sublet"),
A(r"""
That's an excellent find — below your €1,800 budget, right by the park you wanted for Milo, about 15–20 minutes from Mitte, and dog-friendly. Before you send any money, a few checks make sure the sublet also works for your paperwork.

**Before signing**

- **Is it a legal sublet?** If the person renting it to you is a tenant (Hauptmieter), they need their landlord's permission to sublet. Ask for it in writing. Without it, the sublet can be ended abruptly.
- **Registration**: confirm they'll give you the **Wohnungsgeberbestätigung** (landlord confirmation of move-in), which you need for the Anmeldung. Without registration, you can't get a tax ID promptly, and the residence permit process stalls.
- **Contract**: a written contract with the address, dates, rent (warm, with what's included), deposit amount and how it will be returned.
- **Never pay before seeing the flat** or a live video tour, and never by untraceable transfer. Rental scams in Berlin often offer attractive furnished flats to people abroad.
- **Milo in writing**: have the dog permission explicitly in the contract.

**Registration timeline**

Move in mid-June, register at the Bürgeramt within 14 days. Bring:

- Passport.
- The filled-in registration form (Anmeldung).
- Wohnungsgeberbestätigung signed by the landlord (or the main tenant with landlord permission).

**Milo in Friedrichshain**

- Volkspark Friedrichshain has areas where dogs are allowed; keep him leashed on the main paths. For off-leash running, the dog areas in larger parks (e.g., Tempelhofer Feld has designated dog zones) are worth exploring.
- Register him, take out liability insurance and pay the dog tax soon after your Anmeldung — the dog register accepts online registration.

**The next three months**

Use the sublet period to search for a permanent flat with:

- Your German pay slips (from July onward).
- A Schufa report (available once you're registered and have a bank account).
- A reference from the sublet landlord about Milo.

Set alerts for Friedrichshain, Pankow and Treptow so you can stay near a park.
""", "sublet_reply"),
]),
], [
("Which city am I moving to Berlin from?", ["job"], "user-fact"),
("When does my new job begin?", ["july"], "update"),
("What's my dog called, and how big is he?", ["dog"], "user-fact"),
("What's the most I want to spend on rent?", ["rent"], "user-fact"),
("What kind of area do I want to live in?", ["rent"], "preference"),
("When would I like to take German lessons?", ["german"], "preference"),
("Where will I live when I first arrive?", ["sublet"], "update"),
("Which residence permit did you suggest I apply for?", ["visa"], "reply-fact"),
("What insurance did you say is compulsory for dog owners in Berlin?", ["dog_reply"],
 "reply-fact"),
("What did you warn me about flying a dog in summer?", ["july_reply"], "reply-fact"),
("Which landlord document did you say I need to register my address?", ["sublet_reply"],
 "reply-fact"),
("Does the sublet fit my rent budget, and by how much?", ["rent", "sublet"], "multi"),
("What was my start date before the company delayed it?", ["job"], "temporal"),
("Which neighbourhood is my temporary flat in, and was it one of the areas you suggested?",
 ["sublet", "hoods"], "multi"),
]))

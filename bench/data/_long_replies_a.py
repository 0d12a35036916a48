"""long_replies conversations lr-01 .. lr-04 (see make_long_replies.py)."""

from make_long_replies import A, Conv, U

CONVS = []

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-01", "Dana", "en", [
("2025-01-13 19:30", [
U("I'm building an ETL job at work that pulls CSV exports from our vendor's SFTP and loads "
  "them into Postgres. The servers are stuck on Python 3.9 and I can't upgrade them.", "py39"),
A(r"""
Python 3.9 is a perfectly workable base for this kind of job, you just have to pick libraries that still support it and avoid a few newer language features. Here's the stack I'd suggest and why.

**Recommended stack**

1. **paramiko** for the SFTP side. It's pure Python, still supports 3.9, and gives you `SFTPClient.open()` so you can stream a remote file instead of downloading it to disk first. If your security team prefers, `asyncssh` works too, but for a nightly batch job synchronous paramiko is simpler.
2. **psycopg 3** (the `psycopg` package, not `psycopg2`) for Postgres. Its `cursor.copy()` context manager is the fastest way to bulk-load rows and it's much nicer than building big `INSERT` statements. It supports 3.9 fine.
3. The **standard library `csv` module** for parsing. Resist pandas here: it's great for analysis but it wants the whole file in memory and pulls in numpy, which makes the deploy heavier.
4. **stdlib `logging`** with a simple formatter, writing to stdout so cron or systemd captures it.

**Things to avoid on 3.9**

- No `match` statements (3.10+).
- No `X | Y` union syntax in annotations at runtime. Either write `Optional[str]` / `Union[int, str]` from `typing`, or put `from __future__ import annotations` at the top of each module so annotations are never evaluated.
- No `zip(..., strict=True)` (3.10+). If you want length checking, compare lengths yourself.
- `dict | dict` merging works (3.9 added it), and so do `list[str]`-style generics in annotations.

**Rough shape of the job**

```python
from __future__ import annotations

import csv
import io
import logging

import paramiko
import psycopg

log = logging.getLogger("vendor_etl")

def fetch_rows(host: str, user: str, key_path: str, remote_path: str):
    transport = paramiko.Transport((host, 22))
    transport.connect(username=user, pkey=paramiko.RSAKey.from_private_key_file(key_path))
    sftp = paramiko.SFTPClient.from_transport(transport)
    try:
        with sftp.open(remote_path, "rb") as raw:
            text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
            yield from csv.DictReader(text)
    finally:
        sftp.close()
        transport.close()
```

For the load, I'd start with a batch size of 5,000 rows per `COPY` into a staging table, then a single `INSERT ... SELECT ... ON CONFLICT` into the real table. That keeps each transaction small and lets you re-run a night without duplicating data.

If you tell me roughly how big the files are and how many people will maintain this, I can tune the structure, because a one-person script and a team-owned service want slightly different levels of ceremony.
""", "rec_stack"),
U("Team is just four of us and nobody else really knows Python, so I want it boring and "
  "readable rather than clever. Also I indent with tabs, our linter config expects that.",
  "team4"),
A(r"""
Boring and readable is exactly right for a four-person team where you'd otherwise be the only one who can touch it. A few decisions make a big difference for people who don't write Python every day.

**Project layout: one module per stage**

```
vendor_etl/
	__init__.py
	config.py      # reads env vars / a .ini file, nothing else
	fetch.py       # SFTP: list files, stream one file
	validate.py    # turn a CSV row into a clean tuple or raise
	load.py        # COPY into staging, merge into target
	main.py        # glue: parse args, call the three stages, exit code
tests/
	test_validate.py
	test_load.py
pyproject.toml
README.md
```

Each stage takes plain values in and returns plain values out, so someone reading `main.py` sees the whole flow in twenty lines. No classes unless they earn their keep; plain functions are easier for non-Python people to follow.

**Tabs**

Tabs are fine and the tooling supports them. If you use ruff for formatting and linting, the relevant part of `pyproject.toml` looks like this:

```toml
[tool.ruff]
target-version = "py39"
line-length = 100

[tool.ruff.format]
indent-style = "tab"

[tool.ruff.lint]
select = ["E", "F", "W", "B", "I"]
ignore = ["W191", "E101"]  # tab indentation warnings
```

Setting `target-version = "py39"` also means ruff will flag syntax that doesn't exist on 3.9, which protects you from someone pasting in a `match` block from Stack Overflow.

**Readability habits worth enforcing**

- Type hints on every function signature. They double as documentation for people who don't know Python's conventions.
- No comprehensions nested more than one level; write the loop out.
- Errors are logged with the file name and row number, e.g. `log.warning("bad row %s:%d: %s", path, lineno, err)`. When a vendor file is broken at 3 a.m., that one line is what saves the next person.
- A `README.md` with three sections: how to run it locally, how it's scheduled, and what to do when it fails.

**Validation stage example**

```python
def parse_row(row: dict[str, str], lineno: int) -> tuple[str, int, str]:
	sku = row["sku"].strip()
	if not sku:
		raise ValueError(f"line {lineno}: empty sku")
	qty = int(row["quantity"])
	return sku, qty, row["warehouse"].strip().upper()
```

Keep the rule "validate.py never touches the network or the database" and tests stay trivial to write. I'd aim for tests on validation and the merge SQL only; fetch is thin enough to test by running it against the vendor's test folder.
""", "layout"),
]),
("2025-01-20 20:05", [
U("Update on the files: the vendor exports are getting big, around 2 GB each night now. "
  "The box only has 4 GB of RAM.", "bigfiles"),
A(r"""
2 GB a night on a 4 GB machine is fine as long as nothing in the pipeline ever holds the whole file. The design we sketched already streams, so the main work is making sure every stage stays streaming and that the database side doesn't become the bottleneck.

**Keep memory flat**

- `sftp.open()` plus `csv.DictReader` reads line by line; memory use stays at a few megabytes regardless of file size. Don't call `list()` on the reader, and don't collect rows for sorting or deduplication in Python — push that into SQL.
- Switch `DictReader` to plain `csv.reader` if profiling shows it matters. Building a dict per row for 10+ million rows costs real CPU; a tuple with known column positions is about 30% faster.
- Raise the SFTP read buffer. paramiko's default prefetch is conservative; `raw.prefetch()` right after opening the file makes a noticeable difference on large files.

**Chunked COPY**

With files this size I'd raise the batch from the 5,000 rows I suggested earlier to chunks of 50,000 rows. Each chunk is one `COPY` into the staging table, so a failure halfway through loses at most one chunk of work, and Postgres gets large enough writes to be efficient.

```python
from itertools import islice

CHUNK = 50_000

def load_chunks(conn, rows):
	total = 0
	while True:
		batch = list(islice(rows, CHUNK))
		if not batch:
			break
		with conn.cursor() as cur:
			with cur.copy("COPY staging_inventory (sku, qty, warehouse) FROM STDIN") as copy:
				for rec in batch:
					copy.write_row(rec)
		conn.commit()
		total += len(batch)
		log.info("loaded %d rows so far", total)
	return total
```

50,000 tuples of three short fields is a few tens of megabytes at most, so you have plenty of headroom on 4 GB.

**Staging table and merge**

- Make `staging_inventory` an `UNLOGGED` table. It skips the write-ahead log, which roughly halves the load time, and you don't care if it's lost in a crash because you can reload.
- Truncate it at the start of each run.
- After all chunks are in, run the merge once:

```sql
INSERT INTO inventory (sku, qty, warehouse, updated_at)
SELECT sku, qty, warehouse, now() FROM staging_inventory
ON CONFLICT (sku, warehouse) DO UPDATE
SET qty = EXCLUDED.qty, updated_at = EXCLUDED.updated_at;
```

- Add an index on `(sku, warehouse)` in the target if it isn't already the primary key, and run `ANALYZE staging_inventory` before the merge so the planner knows how big it is.

**Disk**

Since nothing is written to local disk, you don't need 2 GB of free space on the box, but Postgres does need room for the staging table plus its growth. Check the database volume has at least three times the file size free.

Expect roughly 10–20 minutes per night for 2 GB on modest hardware; most of it is network transfer. If it's much slower, measure the SFTP read alone first, since that's usually the surprise.
""", "stream"),
U("We need it live before the quarterly audit. The launch is planned for the end of February.",
  "launch_feb"),
A(r"""
End of February gives you about five and a half weeks from today. That's enough for a careful rollout if we treat the last two weeks as a shadow run rather than development time. Here's a plan.

**Week 1 (Jan 20–26): finish the core**
- Fetch, validate and load stages working end to end against the vendor's test folder.
- Staging table, merge SQL and the unique index in a migration script that can be reviewed.
- Logging with file name, row counts and elapsed time per stage.

**Week 2 (Jan 27–Feb 2): correctness**
- Tests for `validate.py`: empty SKUs, negative quantities, unknown warehouses, non-UTF-8 bytes.
- Test for the merge: load the same file twice and check row counts don't change (idempotency).
- Decide what a "bad row" does: skip and count, or fail the whole run. For audit purposes I'd fail the run if more than 0.1% of rows are rejected and write the rejected rows to a table for inspection.

**Week 3 (Feb 3–9): operations**
- Scheduling, lock so two runs can't overlap, exit codes that the scheduler understands.
- An alert when the job fails or loads suspiciously few rows compared to the previous night (say, less than half).
- README with the runbook.

**Weeks 4–5 (Feb 10–23): shadow run**
- Run nightly against production data but into a separate schema, compare counts and a sample of values with whatever process exists today.
- Track duration every night; you want a week of stable timings before calling it done.

**Feb 24–28: cut-over**
- Point the merge at the real table, keep the old process available for one more week as a fallback.
- Have one of the other three people on the team do a cut-over rehearsal from the README alone. If they get stuck, the README needs fixing, not them.

**Audit evidence**

Auditors usually want to see: who can change the job, how failures are noticed, and that the data matches the source. The reject table, the row-count log and the alert cover most of that. Keep a short change log in the repository from now on; it's cheap and it's the first thing they ask for.

**Risks to watch**

- The vendor changing the CSV layout. Validate the header row explicitly and fail loudly if a column is missing or renamed.
- The files continuing to grow. At the current growth, check the duration trend during the shadow run so it doesn't quietly hit the start of the business day.
- Only one person understanding the job. Pair with a teammate for at least one of the weekly milestones.

If the date moves, the shadow-run weeks are the part I'd protect; development can compress, but you need real nights of data to trust it.
""", "plan"),
]),
("2025-02-03 18:40", [
U("Change of plan: the launch moved to March 24, the auditors pushed their visit back. So we "
  "have a bit more room.", "launch_mar"),
A(r"""
Good news — March 24 gives you roughly three extra weeks. I wouldn't spend them on more features; I'd spend them on making failures visible and recoverable, because that's what turns a working script into something the audit and your team can rely on.

**Revised timeline**

- **Feb 3–16:** finish the operations work from the old week 3 (scheduling, lock, exit codes), plus the monitoring below.
- **Feb 17–Mar 9:** three-week shadow run instead of two. A longer run catches month-boundary problems — the vendor's end-of-month export is often different.
- **Mar 10–16:** fix whatever the shadow run turned up, rehearse the cut-over.
- **Mar 17–21:** cut-over, with the old process as fallback.
- **Mar 24:** live for the audit, with a full week of production history.

**Retries**

Network blips to the SFTP server are the most common failure for this kind of job. I'd wrap the fetch and the database connect in retries with exponential backoff. The `tenacity` library makes this a decorator:

```python
from tenacity import retry, stop_after_attempt, wait_exponential

@retry(stop=stop_after_attempt(5), wait=wait_exponential(multiplier=2, max=120))
def open_sftp(cfg):
	transport = paramiko.Transport((cfg.host, 22))
	transport.connect(username=cfg.user, pkey=cfg.key)
	return paramiko.SFTPClient.from_transport(transport)
```

Five attempts with waits of 2, 4, 8, 16 seconds covers most transient outages; if the vendor is down for longer, you want the run to fail and alert rather than sit there for an hour.

**Monitoring**

- Write one row per run into an `etl_runs` table: start, end, file name, rows read, rows rejected, rows merged, status. That table is your audit trail and your dashboard.
- Email alert on failure via the company SMTP relay; `smtplib` in the standard library is enough.
- A second check that runs at 07:00: if there's no successful `etl_runs` row for last night, alert. This catches the case where the job didn't start at all, which a failure alert inside the job can't see.

**Data checks**

- Compare today's row count with the median of the last seven runs; alert if it's below 50% or above 200%.
- Spot-check: pick 20 random SKUs per night and compare the loaded quantity with the raw file. Log mismatches.

**Documentation for the audit**

- A one-page description of the data flow with the tables involved.
- The runbook: how to re-run a night, how to skip a bad file, who gets the alerts.
- The change log.

That extra time is also a chance to get one teammate comfortable enough to run the job alone — I'd make that an explicit goal before March 17.
""", "replan"),
U("Ops says the cron box gets patched every Sunday at 02:00 and reboots, so nothing can run "
  "during that window.", "sunday"),
A(r"""
That's useful to know before the shadow run starts. A patch-and-reboot window means two things: the job must not be running at 02:00 on Sundays, and if a reboot ever interrupts a run, the next run must recover cleanly. Both are easy to arrange.

**Schedule**

Run at 03:30 Monday to Saturday and at 05:00 on Sunday, well after the patch window. The vendor drops files around midnight, so 03:30 gives them margin, and 05:00 on Sunday gives the box time to come back and settle after the reboot.

With cron:

```
# m  h  dom mon dow  command
30   3  *   *   1-6  /opt/vendor_etl/run.sh
0    5  *   *   0    /opt/vendor_etl/run.sh
```

If your servers use systemd, a timer is nicer because it can catch up on a missed run after a reboot (`Persistent=true`) and logs go to the journal automatically:

```ini
[Timer]
OnCalendar=Mon..Sat 03:30
OnCalendar=Sun 05:00
Persistent=true
```

**Never two runs at once**

Use `flock` in the wrapper script so a slow run and the next scheduled run can't overlap:

```bash
#!/bin/bash
exec /usr/bin/flock -n /var/lock/vendor_etl.lock \
	/opt/vendor_etl/venv/bin/python -m vendor_etl.main "$@"
```

`-n` makes the second run exit immediately instead of waiting, and the job logs a "skipped: already running" line you can alert on.

**Surviving an interrupted run**

- Because each run truncates the staging table first and the merge is a single statement, a run killed halfway leaves the target table untouched. Re-running is always safe.
- Record the run in `etl_runs` with status `started` at the beginning and update it at the end. A `started` row with no end time after a reboot tells you exactly which night to re-run.
- Don't delete the file from the vendor's SFTP until the merge commits. Keep a `processed/` folder or a table of processed file names so you never load the same night twice by accident.

**Check the duration margin**

From our earlier estimate, a 2 GB night takes 10–20 minutes. Starting at 03:30 on weekdays leaves hours before the business day; on Sunday, 05:00 is comfortable too. If the files keep growing, the 07:00 "did last night succeed" check from before will tell you before anyone else notices.

Tell ops the exact times you picked so they don't schedule something else heavy at 03:30 — the database backup is the usual collision.
""", "schedule"),
U("One more constraint: I'd rather not add heavy dependencies. Security review takes weeks for "
  "every new package we bring in.", "fewdeps"),
A(r"""
That changes one recommendation. With a security review of several weeks per package and a March 24 launch, every dependency is a schedule risk. Let's get down to the minimum.

**What actually needs a third-party package**

- **paramiko** — unavoidable; the standard library has no SFTP client. It pulls in `cryptography`, `bcrypt` and `pynacl`, but those are widely reviewed and your company may already have them approved. Ask security whether paramiko is already on the list; it often is.
- **psycopg** — also unavoidable for Postgres. Use the `psycopg[binary]` extra only if the servers lack `libpq`; otherwise plain `psycopg` has no other dependencies.

**What we can drop**

- **tenacity**: I suggested it for retries, but it's easy to replace with a ten-line helper, so drop it:

```python
import time

def with_retries(fn, attempts=5, base=2.0, cap=120.0):
	for n in range(1, attempts + 1):
		try:
			return fn()
		except (OSError, paramiko.SSHException, psycopg.OperationalError) as err:
			if n == attempts:
				raise
			wait = min(cap, base ** n)
			log.warning("attempt %d failed (%s), retrying in %.0fs", n, err, wait)
			time.sleep(wait)
```

Same behaviour as the decorator: five tries, exponential waits, then give up and let the alert fire.

- **ruff** is a development tool, not a runtime dependency. Keep it in a `dev` extra so it never reaches the servers, and check whether the review covers dev tools at all.
- **Email alerts**: `smtplib` and `email.message` from the standard library.
- **Config**: `configparser` for an `.ini` file, or environment variables via `os.environ`. No need for pydantic or python-dotenv.
- **CLI**: `argparse`, not click or typer.
- **Testing**: `unittest` runs everywhere without review; pytest is nicer but counts as a dependency if tests run on the server. Running tests on a developer machine or in CI sidesteps that.

**Pin everything**

Generate a `requirements.txt` with exact versions and hashes (`pip-compile --generate-hashes`, run on a developer machine), and install with `pip install --require-hashes`. Reviewers like this because it proves what's installed is what they approved.

**Final runtime footprint**

- Python 3.9 standard library
- paramiko (+ its crypto dependencies)
- psycopg

That's a small, explainable list for the audit, and nothing in the design we built depends on anything else.
""", "trim"),
]),
], [
("Which Python version am I limited to on the work servers?", ["py39"], "user-fact"),
("How do I like my code indented?", ["team4"], "preference"),
("How many people maintain this job with me?", ["team4"], "user-fact"),
("When does the ETL need to go live now?", ["launch_mar"], "update"),
("What maintenance window do I have to keep the job out of?", ["sunday"], "user-fact"),
("How much memory does the ETL machine have, and how big are the nightly exports?",
 ["bigfiles"], "user-fact"),
("What's my attitude toward bringing in new third-party packages, and why?", ["fewdeps"],
 "preference"),
("Which library did you suggest for downloading the vendor's files?", ["rec_stack"],
 "reply-fact"),
("How many rows per chunk did you say to load once the files got large?", ["stream"],
 "reply-fact"),
("How did you propose splitting the code into modules?", ["layout"], "reply-fact"),
("At what times did you suggest scheduling the nightly run?", ["schedule"], "reply-fact"),
("Which retry library did you first recommend, and what did you replace it with when I "
 "objected to extra packages?", ["replan", "trim"], "multi"),
("What was the original go-live target before the auditors moved their visit?",
 ["launch_feb"], "temporal"),
("How long a shadow run did you plan after the deadline moved?", ["replan"], "reply-fact"),
("Given the machine's memory and the Sunday patching, what chunk size and run times did you settle on?",
 ["bigfiles", "stream", "sunday", "schedule"], "multi"),
]))

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-02", "Marco", "en", [
("2025-06-08 10:15", [
U("We're redoing the kitchen in our 1962 ranch house. Budget is about $35k all in, and we want "
  "it done before Thanksgiving because we host my whole family.", "budget35"),
A(r"""
A 1962 ranch is a great candidate for a kitchen remodel — usually simple framing and a single story make the work easier — but houses from that era hide a few surprises, so the budget and the schedule both need some slack. Here's how I'd think about it.

**Budget breakdown for about $35,000**

These are typical shares for a mid-range remodel where the layout mostly stays put:

| Item | Share | Roughly |
|---|---|---|
| Cabinets and hardware | 30% | $10,500 |
| Labor (install, carpentry, drywall) | 20% | $7,000 |
| Countertops | 10% | $3,500 |
| Appliances | 12% | $4,200 |
| Plumbing and electrical | 8% | $2,800 |
| Flooring | 5% | $1,750 |
| Lighting, backsplash, paint | 5% | $1,750 |
| **Contingency** | **15%** | **$5,250** |

I'd hold back that 15% contingency and not spend it on upgrades. In a house this age, the contingency almost always gets used.

**What to check in a 1962 house before demolition**

- **Asbestos.** Vinyl floor tiles (especially 9"×9") and the black mastic under them, plus some drywall joint compound from the era, can contain asbestos. Get a test before anyone pulls up the floor; it's usually $300–500 and avoids a very expensive stop later.
- **Wiring.** You may find ungrounded two-wire circuits or an undersized panel. Modern code wants dedicated circuits for the fridge, dishwasher, microwave, disposal, and two 20-amp counter circuits, plus GFCI protection.
- **Plumbing.** Galvanized steel supply pipes corrode from the inside. If you have them, replacing the kitchen runs with PEX while the walls are open is cheap compared to doing it later.
- **Subfloor.** Decades of a leaky dishwasher or sink can soften the plywood.

**Working backward from Thanksgiving**

Thanksgiving this year is November 27. A kitchen remodel with cabinets that aren't custom typically takes 6–10 weeks of construction once it starts, and the lead time for cabinets is often 4–8 weeks. So:

- **June–July:** design, measurements, get three quotes, order cabinets.
- **Early September at the latest:** construction starts.
- **Mid-November:** target completion, leaving two weeks of buffer for the inevitable delay with a countertop template or an inspection.

The dates that slip most often are countertop fabrication (usually 2–3 weeks after templating, which can only happen once cabinets are installed) and inspections. Ask each contractor how they sequence those.

**Next steps**

1. Measure the room and sketch the current layout with windows, doors and where the plumbing and gas come in.
2. Decide what must not change (e.g., the sink under the window) — keeping plumbing in place saves a lot.
3. Tell me who uses the kitchen and how, so the layout suits your family rather than a showroom.
""", "budgetplan"),
U("My father-in-law lives with us and uses a walker, so the kitchen has to be easy for him to "
  "move around in.", "walker"),
A(r"""
That's an important design input, and it's much cheaper to build in now than to retrofit. The goal is a kitchen he can move through safely, reach what he needs without bending or stretching, and use alone if he wants to make a coffee or a sandwich.

**Space and layout**

- **Aisle widths:** standard kitchens use 36" between counters. With a walker, aim for **42" minimum, ideally 48"** in the main work aisle and anywhere he'd turn around. A walker needs about 30" of width plus room for elbows and a turning circle of roughly 60" if he has to reverse direction.
- **Island or not:** an island is only a good idea if you can keep 42"+ on every side. In many ranch kitchens, a peninsula or an L-shape gives more clear floor space than forcing an island in.
- **No thresholds.** Keep the new floor flush with adjacent rooms; even a 1/2" lip catches walker feet.

**Storage he can reach**

- **Drawers instead of base cabinets with doors.** Deep drawers for pots and dishes mean nothing has to be fished out from the back of a low shelf.
- **Everyday items between 15" and 48" from the floor.** Put mugs, plates, and his snacks in a low drawer or on the counter, not in upper cabinets.
- **Pull-down shelves** in one or two upper cabinets if you want them; they're pricier but helpful.

**Appliances**

- **Microwave drawer** under the counter, or a microwave on the counter, rather than over the range. Reaching up over a hot cooktop is a real burn risk for anyone with balance issues.
- **Wall oven at counter height** or a side-opening oven door if the budget allows; otherwise a standard range is fine as long as there's a landing spot next to it.
- **French-door or bottom-freezer refrigerator** so the fresh food section is at a comfortable height.
- **Dishwasher raised** 6–8" on a plinth if it's him loading it.

**Fixtures and finishes**

- **Lever or single-handle faucet**, ideally touch or motion-activated.
- **Slip-resistant flooring.** Matte luxury vinyl plank or porcelain tile with a good wet coefficient of friction (look for DCOF ≥ 0.42). Avoid glossy tile.
- **D-shaped pulls**, not knobs.
- **Good, even lighting:** under-cabinet LEDs plus ceiling lights so there are no dark spots near the floor.
- **Rounded counter corners** where he'll pass closely.

**A resting spot**

A section of counter at 30" high with open knee space, or a small table, gives him somewhere to sit and prepare food. People often say it's the single feature they use most.

If you can, ask him to walk through the current kitchen with you and point out what's hard today. That's more useful than any guideline.
""", "access"),
U("I love cooking on gas and I really don't want to give that up, whatever else we change.",
  "gas"),
A(r"""
Understood — we'll plan around a gas range. Gas does come with a few requirements that matter more in an older house, so it's worth getting them right in the design.

**Range choice**

A **30" freestanding or slide-in gas range** fits most ranch kitchens and keeps the budget reasonable. Look for one burner around 15,000–18,000 BTU for searing and one low simmer burner. Slide-in models look built-in and have controls at the front, which is also easier for your father-in-law than reaching over burners to back-mounted knobs.

**Ventilation is not optional**

Gas burners release combustion products — carbon monoxide, nitrogen dioxide, water vapor — right into the kitchen. A good hood that's actually vented outdoors makes a big difference:

- **Ducted to the outside**, not recirculating.
- **300–400 CFM** is right for a residential 30" gas range. Bigger isn't automatically better.
- **Capture matters more than raw power**: the hood should be at least as wide as the range (ideally 3" wider on each side) and mounted 24–30" above the cooking surface.
- **Makeup air:** many codes require a makeup air system if the hood exceeds 400 CFM, because a strong fan in a tight house can pull exhaust back down the water heater flue. Staying at or below 400 CFM usually avoids that cost.

**Gas line in a 1962 house**

- Have the plumber inspect the existing line. Older black-iron pipe is usually fine, but old flexible connectors (especially uncoated brass ones) should be replaced.
- If the range moves more than a few feet, budget $300–800 for rerouting.
- Make sure there's an accessible shutoff valve behind or next to the range.

**Safety**

- A **carbon monoxide detector** in or near the kitchen, and one near bedrooms.
- An **anti-tip bracket** for the range — required and often skipped.
- For your father-in-law, front controls with a lock feature are worth having.

**Induction, just for comparison**

I know you want gas, so I won't push, but one thing to know: induction ranges have come down in price and offer very fast, precise heat without combustion byproducts. If anything about ventilation or your panel turns out to be difficult, it's the alternative to keep in mind.

**Where this leaves the budget**

A good 30" gas range runs $1,200–2,500 and a ducted hood $300–900 plus ducting. That fits comfortably inside the $4,200 appliance line I sketched, as long as the fridge and dishwasher are mid-range.
""", "gasreply"),
]),
("2025-07-14 20:40", [
U("Got the quotes back. The budget has to come down to $28k, my wife's hours got cut at work.",
  "budget28"),
A(r"""
Sorry to hear about the hours. Dropping from $35,000 to $28,000 is a 20% cut, which is significant but very doable if we protect the things that matter most — accessibility for your father-in-law and a safe, well-ventilated cooking area — and economize on the things that don't affect daily use.

**Biggest savings, roughly in order**

1. **Keep the layout.** Not moving the sink, dishwasher or range avoids most new plumbing, gas and electrical runs. This alone can save $2,000–4,000. The aisle widths we discussed can usually be achieved by changing cabinet depths or removing one run rather than relocating everything.
2. **Cabinets: go semi-stock or ready-to-assemble.** Good RTA lines with plywood boxes and soft-close drawers cost a fraction of custom. You keep the drawer-heavy base layout, which is the important part for accessibility. Savings: $3,000–5,000.
3. **Countertops: butcher block or a good laminate instead of quartz.** Modern laminate with a square edge looks far better than it used to, and butcher block on the main run is warm and repairable. If you love stone, consider quartz only on a small section like a peninsula. I'd go with butcher block on the perimeter; it fits the new budget and pairs well with a ranch house. Savings: $1,500–2,500.
4. **Do some work yourselves.** Demolition (after the asbestos test), painting, and installing the backsplash tile are the usual DIY wins. Savings: $1,000–2,500 depending on how much.
5. **Keep the existing window and door.** Replacing them is expensive and adds schedule risk.
6. **Appliances: buy during holiday sales** or look at scratch-and-dent outlets. A dent on the side of a fridge that sits next to a cabinet is invisible.

**Revised budget at $28,000**

| Item | Amount |
|---|---|
| Cabinets and hardware (RTA/semi-stock) | $7,000 |
| Labor | $6,000 |
| Countertops (butcher block/laminate) | $1,800 |
| Appliances | $4,000 |
| Plumbing and electrical (no relocation) | $1,800 |
| Flooring (LVP) | $1,500 |
| Lighting, backsplash, paint | $1,300 |
| Contingency (15%) | $4,200 |
| **Total** | **$27,600** |

I kept the contingency at 15%. It's tempting to cut it first, but in a 1962 house it's the line most likely to save the project from stalling.

**What not to cut**

- The wider aisle and drawer base cabinets.
- The ducted hood.
- Slip-resistant flooring.
- Permits and inspections.

When you compare the quotes, ask each contractor to price the "no layout change" version and the DIY-demo version separately; it makes it easy to see where their numbers are coming from.
""", "cuts"),
U("Our younger son has asthma and the pediatrician brought up gas stoves. I think we'll go with "
  "induction after all.", "induction"),
A(r"""
That's a reasonable decision, and it's good that it came up before anything was ordered. Studies have linked gas cooking with higher indoor nitrogen dioxide levels, which can aggravate asthma, so removing the combustion source is a real benefit for your son — and it also simplifies a few things from the earlier gas plan.

**What induction needs electrically**

- A **dedicated 240-volt circuit**, typically **40 or 50 amps** depending on the range (check the installation manual of the model you pick before the electrician quotes).
- **Panel capacity.** This is the big question in a 1962 house. Many homes of that age have a **100-amp panel**, sometimes with little spare room. The electrician should do a load calculation. If the panel is full, options include a tandem breaker (if allowed), a load-management device, or a panel upgrade, which can cost $1,500–3,000 — this is exactly what the contingency is for.
- **Wire run**: if the range stays where the gas one was, the electrician needs a path from the panel; in a single-story ranch with an attic or crawlspace, that's usually straightforward.

**Cookware**

Induction only works with magnetic pans. Test your current pots with a fridge magnet: if it sticks firmly to the bottom, it works. Cast iron and most stainless steel are fine; aluminum, copper and glass aren't. A basic set of induction-ready pans is $150–300 if you need them.

**Cost**

- A 30" freestanding induction range: about $1,100–2,000 today, similar to a mid-range gas model.
- Hood: still recommended for grease and steam, but you can go smaller — a 250–300 CFM ducted hood is plenty, and you're well below any makeup-air threshold.
- Capping the gas line at the kitchen: $150–300 for the plumber, or leave it capped behind the range for a future owner.

**Other benefits for your household**

- The cooktop surface stays relatively cool, and the pan heats directly — fewer burns, which matters with a walker user in the kitchen.
- Most models have auto shut-off and child lock.
- Cleanup is a flat glass surface.

**Budget impact**

Removing the gas line work and going to a smaller hood roughly offsets the new circuit — unless the panel needs upgrading. I'd ask the electrician for the load calculation first, before finalizing anything else.
""", "induction_reply"),
]),
("2025-08-30 09:05", [
U("The contractor can start on October 6. Also we decided to keep the old oak floors in the "
  "dining room and make the kitchen flooring work with them.", "oak"),
A(r"""
October 6 to Thanksgiving on November 27 is a little under eight weeks. That's tight but workable, especially since we're keeping the layout and using semi-stock cabinets. The key is having every long-lead item in hand before demolition starts.

**Before October 6**

- Cabinets delivered and inspected (open every box; damaged pieces take weeks to replace).
- Induction range, hood, sink and faucet on site or scheduled.
- Asbestos test results back, and abatement done if needed.
- Electrician's panel assessment done, so any upgrade is scheduled, not discovered.
- Flooring picked and ordered.

**Construction schedule**

| Week | Dates | Work |
|---|---|---|
| 1 | Oct 6–10 | Demo, haul away, inspect subfloor |
| 2 | Oct 13–17 | Rough electrical (240V circuit), rough plumbing, patch walls |
| 3 | Oct 20–24 | Inspections, drywall, primer |
| 4 | Oct 27–31 | Flooring, cabinet install |
| 5 | Nov 3–7 | Countertop template (butcher block is often made on site or ships in days) |
| 6 | Nov 10–14 | Countertops, sink, backsplash |
| 7 | Nov 17–21 | Appliances, lighting, paint, punch list |
| 8 | Nov 24–26 | Buffer, final clean |

Butcher block helps here; a stone countertop would add a 2–3 week fabrication gap after templating.

**Flooring that works with oak**

Since the dining room oak stays, you don't want a kitchen floor trying to imitate it and looking slightly wrong. Choose one of:

- **A contrasting luxury vinyl plank** in a neutral gray-beige or a lighter, matte wood look. Contrast looks intentional; a near-match looks like a mistake.
- **Porcelain tile** in a warm neutral, which pairs well with red or white oak.
- Run the planks in the same direction as the oak boards to keep the rooms visually connected.
- Use a **flush transition strip** at the doorway so there's no lip for the walker. Ask the installer to match floor heights, shimming if needed.

**Living without a kitchen for eight weeks**

- Set up a temporary station in the dining room or garage: fridge, microwave, a plug-in induction burner (you'll be able to test your cookware!), a toaster oven, and a folding table.
- Paper plates for a couple of weeks are worth the sanity.
- Keep your father-in-law's snacks and drinks reachable in the temporary setup too.

Schedule a check-in with the contractor each Friday; small delays compound when they're discovered late.
""", "schedule"),
U("One preference for the window wall: we'd rather have open shelves than upper cabinets, we like "
  "seeing our dishes.", "shelves"),
A(r"""
Open shelves on the window wall can look great and they're cheaper than upper cabinets, which helps the $28k budget. They do need a little planning so they stay practical and safe.

**Dimensions**

- **Depth: 10–12 inches.** Deep enough for dinner plates (most are 10–11"), shallow enough that nothing gets lost in the back.
- **Height above the counter: about 18 inches** for the lowest shelf, the same as upper cabinets, so you can still use the counter underneath. Space additional shelves 12–15" apart.
- **Length:** keep them at least 3–4" away from the window casing so the trim reads cleanly.

**Mounting**

- Shelves loaded with dishes are heavy — a full shelf of stoneware can easily reach 60–80 pounds. Anchor **brackets into studs**, or use hidden steel rods drilled into studs for a floating look. Toggle bolts in drywall alone aren't enough.
- Since the walls will be open during construction, ask the contractor to add **horizontal blocking** between studs at the shelf heights. It costs almost nothing now and lets you place brackets anywhere.

**Material**

- Match the shelves to the **butcher block countertops** for a cohesive look, or paint them the wall color if you want the dishes to stand out.
- Seal wood shelves with a durable finish — near a sink they get splashed.

**Where not to use open shelves**

- **Near the range.** Even with induction, cooking produces grease and steam that settles on open shelves. Keep a closed cabinet or two around the hood.
- **For rarely used items.** Open shelves collect dust; keep them for the dishes you use every day so they cycle through the dishwasher.

**Accessibility**

For your father-in-law, the lowest shelf at 18" above the counter is around 54" from the floor, which is a stretch for someone using a walker. Two ideas:

- Keep the everyday mugs and plates **in a base drawer** for him, and the display pieces on the shelves.
- Or add a **short shelf at 12" above the counter** at one end for his cups.

**Cost**

Two 6-foot shelves in solid wood with heavy brackets run around $250–500 in materials, versus $1,500+ for a run of upper cabinets. That difference can go to the contingency.
""", "shelves_reply"),
]),
], [
("What's our remodeling budget at this point?", ["budget28"], "update"),
("Why do I want the kitchen finished by late November?", ["budget35"], "user-fact"),
("Who in our house has trouble getting around, and what does he use?", ["walker"],
 "user-fact"),
("Which kind of cooktop are we putting in, and what made us decide?", ["induction"], "update"),
("What are we doing with the flooring in the dining room?", ["oak"], "preference"),
("What do we want on the window wall in place of wall cabinets?", ["shelves"], "preference"),
("When can the contractor begin work?", ["oak"], "user-fact"),
("How much of the budget did you say to keep in reserve?", ["budgetplan"], "reply-fact"),
("How wide did you say the walkways should be for someone with a walker?", ["access"],
 "reply-fact"),
("What did you warn might need upgrading in an old house before an induction range goes in?",
 ["induction_reply"], "reply-fact"),
("How deep should the open shelves be, according to you?", ["shelves_reply"], "reply-fact"),
("Which countertop did you recommend once the money got tighter?", ["cuts"], "reply-fact"),
("How did our budget change after the quotes came in, and what was the biggest saving you "
 "suggested?", ["budget28", "cuts"], "multi"),
("Before my son's asthma came up, what did I say about how I like to cook?", ["gas"],
 "temporal"),
("How big a hood fan did you suggest for the gas range, and how did that change for induction?",
 ["gasreply", "induction_reply"], "multi"),
("Which budget figure did I give you in our very first conversation?", ["budget35"], "temporal"),
]))

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-03", "Priyanka", "en", [
("2025-02-10 21:00", [
U("I run a small bakery in Portland with three locations and want a pre-order app for "
  "customers. I know JavaScript and some React, and I'll be building it alone.", "solo"),
A(r"""
A pre-order app is a very achievable solo project if you keep the first version narrow: browse today's and tomorrow's menu, pick a location and a pickup time, pay, get a confirmation. Everything else can wait. Given that you already know JavaScript and some React, here's the stack I'd recommend.

**Recommended stack**

- **Expo (React Native) with TypeScript.** Expo handles builds, app store submission and over-the-air updates, so you never need to open Xcode or Android Studio for routine work. TypeScript catches a lot of mistakes a solo developer would otherwise find in production.
- **Expo Router** for navigation. It uses file-based routes, which will feel familiar if you've seen Next.js.
- **Supabase** as the backend: a Postgres database, authentication (email magic links or Apple/Google sign-in), and row-level security, without running your own server.
- **TanStack Query (React Query)** for fetching and caching the menu and orders.

**Data model for version one**

```sql
create table locations (id serial primary key, name text, address text, opens time, closes time);
create table products (id serial primary key, name text, price_cents int, allergens text[]);
create table daily_stock (location_id int references locations, product_id int references products,
                          day date, quantity int, primary key (location_id, product_id, day));
create table orders (id uuid primary key default gen_random_uuid(), user_id uuid, location_id int,
                     pickup_at timestamptz, status text default 'pending', total_cents int);
create table order_items (order_id uuid references orders, product_id int, qty int);
```

`daily_stock` is the important table for a bakery: it stops people pre-ordering twelve croissants when the Hawthorne shop only bakes forty.

**Screens**

1. Location picker (remember the last choice).
2. Menu for the chosen day with allergen badges.
3. Cart and pickup time slots.
4. Checkout.
5. Order confirmation with a pickup code staff can read aloud.

**Order cutoff**

I'd set a **cutoff of two hours before pickup** for version one: it gives the counter staff time to box orders and avoids customers ordering something that just sold out in the shop.

**Staff side**

Don't build a staff app yet. A simple web page (even a Supabase dashboard view, or a tiny Next.js page) listing today's orders per location is enough to start.

Roughly, a motivated solo developer can get this to a TestFlight beta in 8–10 weeks of evenings. What does your current payment setup in the shops look like? Reusing it will save you a lot of accounting pain.
""", "stack"),
U("We already use Square for payments in all three shops. And honestly I hate Redux, I tried it "
  "once and never want to see a reducer again.", "square"),
A(r"""
Both of those make things simpler.

**Square for in-app payments**

Since the shops already run on Square, use the **Square In-App Payments SDK** for the app. Benefits:

- App orders land in the same Square dashboard as in-store sales, so your reports and payouts stay in one place.
- Square handles card data; your app never sees a full card number, which keeps you out of most PCI compliance work.
- Apple Pay and Google Pay work through the same SDK.

There's a React Native plugin for the In-App Payments SDK, and with Expo you'll use a **development build** (not Expo Go) because it includes native code. The flow:

1. The app opens Square's card entry sheet and gets back a one-time **nonce**.
2. The app sends the nonce and the order ID to your backend — a **Supabase Edge Function**.
3. The function calls Square's Payments API with your secret access token, creates the payment, and marks the order as paid.

```ts
// supabase/functions/pay/index.ts
const res = await fetch("https://connect.squareup.com/v2/payments", {
  method: "POST",
  headers: {
    "Authorization": `Bearer ${Deno.env.get("SQUARE_TOKEN")}`,
    "Content-Type": "application/json",
  },
  body: JSON.stringify({
    source_id: nonce,
    idempotency_key: orderId,
    amount_money: { amount: totalCents, currency: "USD" },
    location_id: squareLocationId,
  }),
});
```

Use the order ID as the idempotency key so a double tap can't charge twice. Map each of your three shops to its Square location ID so money lands in the right place.

**State without Redux**

You won't need Redux. Most of your state is server data, which TanStack Query handles — caching, refetching, loading and error states. What's left is small client state: the cart, the selected location, the pickup slot. For that, use **Zustand**:

```ts
import { create } from "zustand";

type CartItem = { productId: number; qty: number };
type CartState = {
  locationId: number | null;
  items: CartItem[];
  add: (productId: number) => void;
  clear: () => void;
};

export const useCart = create<CartState>((set) => ({
  locationId: null,
  items: [],
  add: (productId) =>
    set((s) => {
      const found = s.items.find((i) => i.productId === productId);
      return found
        ? { items: s.items.map((i) => (i.productId === productId ? { ...i, qty: i.qty + 1 } : i)) }
        : { items: [...s.items, { productId, qty: 1 }] };
    }),
  clear: () => set({ items: [] }),
}));
```

No actions, no reducers, no boilerplate — a component calls `useCart((s) => s.add)` and that's it. Persist the cart with Zustand's `persist` middleware and AsyncStorage so it survives the app being closed.
""", "payments"),
U("Timeline: I want it out for Mother's Day, that's our biggest weekend. iPhone only for now, "
  "most of our regulars have iPhones.", "mothersday"),
A(r"""
Mother's Day this year is May 11, so you have about thirteen weeks. iPhone-only helps a lot: one store review, one set of devices to test. Here's a plan that leaves room for Apple's review and a soft launch before the big weekend.

**Weeks 1–3 (Feb 10 – Mar 2): foundation**
- Expo project with TypeScript, Expo Router, TanStack Query, Zustand.
- Supabase tables, row-level security so customers only see their own orders.
- Sign in with Apple (required by Apple if you offer any other social login) plus email magic links.
- Menu and location screens reading real data.

**Weeks 4–6 (Mar 3 – Mar 23): ordering**
- Cart, pickup time slots, the two-hour cutoff.
- Stock decrement when an order is placed (do it inside a database function so two people can't take the last loaf).
- Staff web page listing orders per location.

**Weeks 7–8 (Mar 24 – Apr 6): payments**
- Square In-App Payments in a development build, Edge Function, Apple Pay.
- Test with Square's sandbox, then one real small order per shop.

**Week 9 (Apr 7–13): polish and notifications**
- Push notification when the order is ready, via `expo-notifications`.
- Allergen information on every product.
- App icon, screenshots, privacy policy page (Apple requires one).

**Week 10 (Apr 14–20): App Store submission**
- Submit by **April 14**. First reviews can take a few days and sometimes come back with questions; you want time for a second round.

**Weeks 11–12 (Apr 21 – May 4): soft launch**
- Release to regulars only: a sign in the shops and a QR code. Limit pre-orders to a smaller quantity per product so a bug can't empty your stock.
- Watch the staff page every morning; fix what confuses people.

**Mother's Day week (May 5–11)**
- Freeze features. Only bug fixes.
- Consider a special Mother's Day menu set up in `daily_stock` a week ahead, with its own cutoff (maybe 24 hours, since those orders will be large).

**If you fall behind**

Cut, in this order: push notifications (send an SMS from the staff page instead), Apple Pay (cards only), the account system (guest checkout with a phone number). Don't cut stock limits or the staff view; those are what keep the weekend sane.
""", "timeline"),
]),
("2025-03-16 19:45", [
U("Big news: we signed a lease for a fourth location, in Sellwood, opening in June. The app "
  "should support it from the start.", "fourth"),
A(r"""
Congratulations on Sellwood! The good news is that the data model already treats locations as rows, so a fourth shop is mostly configuration. A few things are worth doing now so it's smooth when the shop opens in June.

**Data**

- Add Sellwood to `locations` now with an `is_active` flag set to false. The app's location picker should only show active locations:

```ts
const { data: locations } = useQuery({
  queryKey: ["locations"],
  queryFn: async () => {
    const { data, error } = await supabase
      .from("locations")
      .select("id, name, address, opens, closes")
      .eq("is_active", true)
      .order("name");
    if (error) throw error;
    return data;
  },
});
```

- When Sellwood opens, flip the flag. No app update needed.
- Give each location its own opening hours and time-slot length. New shops often start with shorter hours.

**Square**

- Create a new **Square location** for Sellwood and store its ID in your `locations` table (a `square_location_id` column). The payment Edge Function already looks it up per order, so payments route correctly.
- Make sure the Square access token you use has permission for the new location.

**Stock**

Sellwood's first weeks will be unpredictable. Set conservative `daily_stock` quantities for app orders there — maybe 20% of what you bake — so walk-in customers aren't left with empty shelves.

**Pre-launch orders**

A nice touch: let people pre-order for Sellwood's opening day a week ahead. It builds buzz and gives you real demand numbers for the first bake. That's just a `daily_stock` row for the opening date with the location active for ordering but marked "opening soon" in the UI.

**Staff page**

Add a location filter (if you haven't already). With four shops, each counter should see only its own orders by default; a staff login tied to a location does that neatly with row-level security.

**Launch timing**

Since Sellwood opens after Mother's Day, this doesn't change the May plan. I'd keep the feature freeze for Mother's Day week and do the Sellwood activation as a small, separate step in June.
""", "sellwood"),
U("Also a lot of customers asked for Android, so I'd like both platforms at launch now, not "
  "iPhone only.", "android"),
A(r"""
That's a fair request, and Expo makes it much less work than it would be otherwise — most of your code is shared. But it does add real testing and store work, so let's look at what changes and whether the Mother's Day date still holds.

**What's shared already**

- All screens, navigation, state (Zustand), data fetching (TanStack Query) and Supabase calls work the same on Android.
- The Square In-App Payments SDK supports Android too, and Google Pay goes through the same flow as Apple Pay.

**What needs Android-specific work**

1. **Google Pay setup**: a Google Pay merchant ID linked to Square, and testing on a real device.
2. **Sign-in**: Sign in with Apple is iOS-centric. On Android, offer Google sign-in plus the email magic link.
3. **Push notifications**: `expo-notifications` uses Firebase Cloud Messaging on Android. You'll need a Firebase project and to upload credentials to Expo. It's a one-time, half-day task.
4. **Layout differences**: the Android back button, status bar, and keyboard behavior. Test the checkout screen especially — keyboards covering the card field is the classic bug.
5. **Devices**: buy or borrow one mid-range Android phone (a two-year-old Samsung or Pixel). Emulators hide performance issues.
6. **Google Play**: a developer account ($25 one time), store listing, and the data safety form. New personal developer accounts must run a **closed test with at least 12 testers for 14 days** before production access, so start that early — your regulars are the perfect testers.

**Revised schedule**

- Add Android testing to weeks 4–9 as you go, rather than at the end.
- **By April 7**: closed test on Google Play with at least 12 regulars.
- **By April 14**: submit to Apple; Google production access after the 14-day test, around April 21.
- The soft launch from April 21 then covers both platforms.

That's tight but feasible. If the Google Play test slips, launch iPhone on time and Android a week or two after Mother's Day — customers will forgive a staggered launch much more than a broken checkout.
""", "android_reply"),
U("Another thing — our Mother's Day menu has a lot of nut desserts, and we need allergens to be "
  "impossible to miss. My own nephew has a severe tree nut allergy so this matters to me.",
  "allergens"),
A(r"""
That's exactly the right instinct, and it's worth designing carefully, because a pre-order app removes the moment where a customer would normally ask the person at the counter.

**Data**

Store allergens as structured data, not text in the description:

```sql
alter table products add column allergens text[] not null default '{}';
alter table products add column may_contain text[] not null default '{}';
-- e.g. allergens = '{tree_nuts, wheat, milk, egg}'
--      may_contain = '{peanuts}'
```

Use a fixed list matching the US major allergens: milk, egg, fish, shellfish, tree nuts, peanuts, wheat, soy, sesame. Keep "contains" and "may contain" separate — shared equipment matters in a bakery.

**Display**

- On every product card: a clear row of **icons with text labels** ("Tree nuts", "Milk"), not icons alone. Use high contrast.
- On the product detail screen: a bold "Contains:" line and a "May contain:" line.
- In the cart: a summary at the top if any item contains tree nuts or peanuts — "Your order contains tree nuts."

**Customer allergen profile**

Let customers set allergens to avoid in their profile. Then:

- Products containing those allergens get a warning banner.
- Optionally filter them from the menu (with a visible toggle, so nothing silently disappears).

```ts
const flagged = product.allergens.some((a) => profile.avoid.includes(a));
```

**Checkout confirmation**

For orders with any item containing a top-nine allergen the customer has flagged, require an explicit tap: "This order contains tree nuts. Continue?" It's one extra step only for the people who need it.

**Staff side**

Print the allergens on the order ticket, so the person boxing the order can double-check, and keep nut desserts boxed separately.

**Legal note**

Add a clear statement in the app that products are made in a kitchen that handles nuts, and that allergen information is maintained by the shops. Ask your insurer whether they have wording they prefer.

For the Mother's Day menu specifically, I'd enter the allergens for each special item a week early and have someone other than you check them against the recipes.
""", "allergen_reply"),
]),
], [
("Am I building the bakery app with a team or on my own?", ["solo"], "user-fact"),
("What payment system do our shops already use?", ["square"], "user-fact"),
("Which state management approach do I want to avoid?", ["square"], "preference"),
("How many shop locations do we have now?", ["fourth"], "update"),
("Which platforms should the app support at launch?", ["android"], "update"),
("Why are nut allergens personally important to me?", ["allergens"], "user-fact"),
("Which weekend did I want the app ready for?", ["mothersday"], "user-fact"),
("Which backend service did you recommend for the database and sign-in?", ["stack"],
 "reply-fact"),
("How long before pickup did you suggest closing pre-orders?", ["stack"], "reply-fact"),
("What library did you recommend for the cart state instead of Redux?", ["payments"],
 "reply-fact"),
("What's the Google Play testing requirement you warned me about?", ["android_reply"],
 "reply-fact"),
("What date did you tell me to submit to the App Store by?", ["timeline"], "reply-fact"),
("How did you suggest keeping the new shop hidden until it opens?", ["sellwood"],
 "reply-fact"),
("Originally which phones was I targeting, and what made me change?", ["mothersday", "android"],
 "multi"),
("What did I tell you in our first session about my programming background?", ["solo"],
 "temporal"),
("How many shops does the app have to handle now, and how did you say payments reach the right one?",
 ["fourth", "sellwood"], "multi"),
]))

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-04", "Ollie", "en", [
("2025-04-27 06:50", [
U("I want to run the Chicago Marathon on October 12. I'm at about 25 miles a week now and my "
  "goal is to finish under 4 hours.", "goal4"),
A(r"""
October 12 gives you a little over 23 weeks, which is comfortable: you can spend the first five building your base and then follow a standard 18-week marathon block. Running 25 miles a week already is a solid starting point for a sub-4:00 goal.

**What sub-4:00 means**

A 4:00 marathon is an average of **9:09 per mile**. Most runners who break four hours have a recent half marathon around 1:52–1:55 or a 10K around 52 minutes. If you don't have a recent race, we'll use a time trial in a few weeks to check the goal.

**Training paces (estimated for a sub-4:00 goal)**

- **Easy:** 10:15–11:00/mile. Most of your miles — conversational pace.
- **Marathon pace:** 9:00–9:10/mile.
- **Tempo/threshold:** about 8:25–8:35/mile, comfortably hard for 20–40 minutes.
- **Intervals:** around 7:50–8:00/mile for 800m–1 mile repeats.

**Base phase (Apr 28 – Jun 8)**

- Build from 25 to about 32 miles per week, increasing no more than 10% a week, with a lighter week every fourth week.
- Five runs a week: four easy, one with strides (6 × 20 seconds fast, relaxed).
- Long run building from 8 to 11 miles.
- Two short strength sessions a week (more below).

**Marathon block (Jun 9 – Oct 12, 18 weeks)**

- Weekly mileage peaking at **about 45 miles** in weeks 13–15.
- **Long runs** building to **20 miles**, with two runs of 18–20 miles in the peak weeks. Several long runs include the last 4–8 miles at marathon pace.
- One quality session midweek: alternating tempo runs and intervals.
- **Three-week taper** starting September 21: about 75%, then 60%, then 40% of peak volume, keeping some marathon-pace work so your legs stay sharp.

**A sample peak week**

| Day | Run |
|---|---|
| Mon | Rest |
| Tue | 8 mi with 3 × 2 mi at tempo |
| Wed | 6 mi easy |
| Thu | 7 mi easy + strides |
| Fri | Rest or 4 mi easy |
| Sat | 20 mi long run, last 6 at marathon pace |
| Sun | 5 mi recovery |

**Strength**

Twice a week, 20 minutes: squats, single-leg Romanian deadlifts, calf raises, side planks, and glute bridges. It's the cheapest injury insurance there is.

Tell me about any injury history and when in the day you can actually run, and I'll adjust the structure.
""", "plan18"),
U("Two things: my left knee gets IT band pain when I push mileage too fast. And I can only run "
  "before 7am because of the kids, so sessions over 90 minutes on weekdays are out.", "knee"),
A(r"""
Both are very common and both shape the plan in useful ways.

**IT band pain**

IT band syndrome usually shows up as pain on the outside of the knee, often a couple of miles into a run, and it tends to flare with sudden jumps in mileage, lots of downhill running, or always running on the same side of a cambered road. The best-supported fixes are load management and hip strength.

Adjustments to the plan:

- **Slower build:** 5–7% per week instead of 10%, and a down week every third week rather than every fourth. Your base phase will go from 25 to about 30 miles instead of 32.
- **Peak lowered slightly** to around 42 miles. For a sub-4:00 goal, consistency beats an extra few miles you can't absorb.
- **Cadence:** if your cadence is below about 165 steps per minute, increasing it by 5% reduces load at the knee. Use a metronome app for a few minutes of each easy run.
- **Vary surfaces and route direction** so the same leg isn't always on the downhill side of the road camber.
- **Hip strength, twice a week:** clamshells with a band (3 × 15), side-lying leg raises (3 × 15), single-leg Romanian deadlifts (3 × 8 each), lateral band walks (3 × 12 steps each way), and single-leg squats to a box (3 × 8).
- **Rule for pain:** if knee pain starts during a run and rises above 3/10, stop and walk home. Two easy days, then try again. If it persists beyond a week, see a physio.

**Before-7am schedule**

If you start at 5:30, you have about 75–90 minutes on weekdays. That's enough for every weekday session in the plan. The only runs longer than 90 minutes are the long runs, which go on the weekend.

Revised weekday structure at peak:

| Day | Run | Time |
|---|---|---|
| Mon | Rest or strength | 20 min |
| Tue | 7 mi with tempo | ~65 min |
| Wed | 6 mi easy | ~62 min |
| Thu | 6 mi easy + strides, then strength | ~75 min |
| Fri | Rest | – |
| Sat | Long run up to 20 mi | ~3:30 |
| Sun | 4–5 mi recovery | ~50 min |

**Early-morning tips**

- Lay out your kit the night before, and keep the first mile very easy — your body is stiff at 5:30.
- A small snack (a banana or toast) 20–30 minutes before quality sessions helps; easy runs can be done fasted if that suits you.
- In the fall, mornings will be dark: a headlamp and a reflective vest are worth buying now.
""", "knee_reply"),
U("I'm vegetarian, and I really don't like treadmills. I'd rather run in the rain than inside.",
  "veg"),
A(r"""
Neither is a problem for marathon training. Plenty of fast marathoners are vegetarian, and outdoor running is better race-specific preparation anyway — the Chicago course is flat and outdoors, after all.

**Vegetarian fueling for training**

The main things to watch are total energy, protein, iron, and vitamin B12.

- **Protein:** aim for about 1.4–1.6 g per kg of body weight per day during the marathon block. Eggs, Greek yogurt, cottage cheese, lentils, chickpeas, tofu, tempeh, and seitan cover it. Spread it over 3–4 meals; a 20–30 g protein breakfast after the morning run helps recovery.
- **Iron:** runners lose iron through sweat and foot-strike, and plant iron is less absorbed. Eat lentils, beans, spinach, and fortified cereals with vitamin C (citrus, peppers). Avoid tea or coffee right with iron-rich meals. Get ferritin checked before the block starts; if it's low, supplement under a doctor's guidance.
- **B12:** if you eat dairy and eggs you may be fine, but many vegetarians benefit from a supplement.
- **Carbohydrates:** for the long runs, the day before should be carb-rich: rice, pasta, potatoes, bread.

**Fueling during long runs**

From runs of about 90 minutes up, practice fueling: **30–60 g of carbohydrate per hour**, starting around 45 minutes in. Gels are typically 20–25 g each, so one every 25–30 minutes. Most gels are vegetarian; some chews contain gelatin, so check labels. Practice with the same product you'll use on race day.

**Outdoors only**

Fine — just plan for the conditions:

- **Rain:** a light cap keeps water out of your eyes; body glide or petroleum jelly on feet and anywhere that chafes.
- **Summer heat** in July and August is the bigger issue for early runs: start as early as possible on long-run days, carry water, and accept slower paces on hot days — run by effort, not by the watch.
- **Dark mornings** from September: headlamp, reflective vest.
- **Track for intervals:** a local high school track, or a flat, measured stretch of path.

**Race-day rehearsal**

Do at least two long runs starting at the same time of day as the race (Chicago waves start around 7:30–8:00am), with the same breakfast and gels. It's the best way to find out what your stomach tolerates.
""", "fuel"),
]),
("2025-06-15 06:30", [
U("Ran a half marathon time trial yesterday: 1:49. Feeling good, I want to try for 3:45 instead "
  "of just under 4.", "goal345"),
A(r"""
1:49 for a half is a strong result, and it supports a more ambitious goal. Common race-equivalence formulas put a 1:49 half marathon at about a **3:48–3:52 marathon** for a well-trained runner, and somewhat slower for someone without much marathon-specific mileage. So 3:45 is a stretch goal: realistic if the next four months go well and your knee cooperates.

**New paces for a 3:45 goal**

- **Marathon pace:** 8:35/mile.
- **Easy:** 9:45–10:30/mile.
- **Tempo:** 7:55–8:05/mile.
- **Intervals:** 7:20–7:30/mile.

**Plan adjustments**

We keep the structure built around your knee and your before-7am weekdays, but:

- **Peak mileage:** increase slightly from 42 to about **45 miles**, but only if weeks 1–6 of the block go by with no knee symptoms. Otherwise stay at 42.
- **More marathon-pace work:** long runs in weeks 8–15 include 6–10 miles at 8:35 pace.
- **Midweek tempo:** progress from 3 × 2 miles at tempo to 2 × 4 miles.
- **Keep the three-week taper.**

**A two-goal strategy**

Go into race day with an A goal (3:45) and a B goal (sub-4:00). Decide at mile 13 based on how you feel and on the weather. Chicago in October can be warm; if it's above about 65°F at the start, I'd run for the B goal from the gun.

**Pacing**

For 3:45, the halfway split is about 1:52:30. Aim for even splits or a slight negative split — the most common mistake is running the first 10 miles at 8:15 because it feels easy.

**Knee check**

Faster paces mean more load. Keep the hip-strength sessions twice a week, and be strict about the pain rule. A 3:50 with a healthy knee is better than missing the race.

**Next checkpoint**

A 10-mile race or time trial in late August at roughly tempo effort. If you can run about 1:21–1:22 comfortably-hard, keep 3:45. If it's closer to 1:26, move back toward 3:55.
""", "new_paces"),
U("Heads up: my long runs have to move from Saturday to Sunday. My daughter's swim meets are all "
  "on Saturdays this summer.", "sunday"),
A(r"""
Easy change — Sunday long runs work just as well, and Chicago is itself a Sunday race, so your body will be used to going long on Sundays. We just need to rearrange the surrounding days so you don't stack hard days together.

**New weekly structure**

| Day | Session | Notes |
|---|---|---|
| Mon | Rest | Recovery after the long run |
| Tue | Easy 5–6 mi + strides | Keeps Tuesday light after Sunday |
| Wed | Quality: tempo or intervals | ~65–75 min, before 7am |
| Thu | Easy 6 mi + hip strength | |
| Fri | Easy 5–7 mi, some at marathon pace in later weeks | |
| Sat | Rest or 3–4 mi very easy, if time at the pool allows | Swim meet day |
| Sun | Long run, up to 20 mi | Start early in summer heat |

This keeps at least 48 hours between the quality session and the long run, and Monday rest after Sunday.

**Things to watch**

- **Saturday at the pool:** standing around all day in a hot, humid pool deck can leave you dehydrated and tired. Drink plenty and eat a proper carb-rich dinner on Saturday evening.
- **Sunday start time:** in July and August, start the long run by 6:00am if you can. Sunday mornings tend to have light traffic, which is good for marathon-pace segments.
- **Race rehearsal:** two of your Sunday long runs should start around 7:30am with race-day breakfast and fueling, to match Chicago's start time — do them in September when it's cooler.

**Strength sessions**

Move the second strength session to Tuesday after the easy run, not Saturday. Strength work the day before a long run is fine if it's light, but heavy single-leg work right before 18–20 miles can aggravate the IT band.

**Taper**

The taper still starts September 21, a Sunday, with a reduced long run of 14 miles that day, then 12, then 8 the weekend before the race.
""", "sunday_reply"),
U("Update: I got a new pair of shoes, the Saucony Endorphin Speed. Also I've been feeling a "
  "little twinge in the left knee again after the 16-miler.", "twinge"),
A(r"""
A new shoe and a returning twinge are worth looking at together, because a sudden change in footwear is a classic trigger for IT band pain.

**The shoe**

The Endorphin Speed is a lightweight trainer with a nylon plate and a fairly soft, bouncy foam — good for tempo runs and marathon-pace work, and plenty of people race marathons in it. But:

- A new shoe with a different geometry changes how your legs absorb load. Introduce it gradually: one shorter run a week for two weeks, then a quality session, then a long run.
- Keep your previous, familiar shoe for easy runs and most long runs for now.
- If you want to race in the Speed, do at least two long runs over 14 miles in it before October.

**The knee twinge**

- **How bad is it?** Use the pain rule: a twinge at 1–2/10 that disappears after the run and isn't there the next morning is something to manage; pain that rises during a run or lingers is something to stop for.
- **This week:** drop the next long run from 18 to 12–14 miles, run it in your old shoes, and skip the marathon-pace segment. Keep Wednesday's session but make it a steady tempo rather than intervals.
- **Strength:** do the hip routine three times this week, and add foam rolling of the quads and glutes (not directly on the IT band, which mostly hurts without helping).
- **Check your route:** long runs on a cambered road or a lot of downhill can provoke symptoms.

**When to see someone**

If the twinge is still there after a week of reduced load, or if it appears within the first couple of miles, see a sports physiotherapist. A few sessions early is much better than a month off later.

**The goal**

Protect the A goal by protecting the knee. If you lose more than two weeks of training, we'll switch to the B goal of sub-4:00 — you'll still have enough fitness for it.
""", "twinge_reply"),
]),
], [
("Which marathon am I training for, and when is it?", ["goal4"], "user-fact"),
("What finishing time am I aiming for now?", ["goal345"], "update"),
("Which knee gives me trouble, and what kind of trouble?", ["knee"], "user-fact"),
("When in the day am I able to run on weekdays?", ["knee"], "user-fact"),
("What's my diet, and where do I prefer to run?", ["veg"], "preference"),
("Which day of the week do my long runs happen on now?", ["sunday"], "update"),
("Which running shoes did I just buy?", ["twinge"], "user-fact"),
("What was my peak weekly mileage in your first plan?", ["plan18"], "reply-fact"),
("Which hip exercises did you suggest for the IT band?", ["knee_reply"], "reply-fact"),
("How many grams of carbohydrate per hour did you suggest on long runs?", ["fuel"],
 "reply-fact"),
("What marathon pace did you give me for the faster goal?", ["new_paces"], "reply-fact"),
("How did you tell me to break in the new shoes?", ["twinge_reply"], "reply-fact"),
("How did my half marathon time trial change my goal, and what did you say about whether it's "
 "realistic?", ["goal345", "new_paces"], "multi"),
("What was my weekly mileage when we first started planning?", ["goal4"], "temporal"),
("Before the swim meets, which day did your plans put the long run on?", ["plan18"], "temporal"),
]))

"""long_replies conversations lr-05 .. lr-08 (see make_long_replies.py)."""

from make_long_replies import A, Conv, U

CONVS = []

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-05", "Sam", "en", [
("2025-05-03 14:20", [
U("I'm writing a Rust CLI that renames photo files using their EXIF date. I develop on Windows "
  "and most of the people who'll use it are on Windows too.", "windows"),
A(r"""
That's a nice first real Rust project: it touches the filesystem, parsing, error handling and argument parsing without needing anything exotic. Windows as the main platform is fine, but it does affect a few choices.

**Crates I'd use**

- **clap** (with the `derive` feature) for arguments. It generates `--help`, handles Windows-style paths, and derive mode keeps the code short.
- **kamadak-exif** (imported as `exif`) for reading EXIF. It's pure Rust, so no C toolchain headaches on Windows.
- **chrono** for formatting dates, or just format the EXIF string yourself — the `DateTimeOriginal` tag is already `YYYY:MM:DD HH:MM:SS`.
- **anyhow** for error handling in the binary: `anyhow::Result` plus `.context("...")` gives good messages with little code.
- **walkdir** if you want to recurse into subfolders.

**Skeleton**

```rust
use std::{fs, path::PathBuf};
use anyhow::{Context, Result};
use clap::Parser;

#[derive(Parser)]
#[command(about = "Rename photos by their EXIF capture date")]
struct Args {
    /// Folder containing photos
    dir: PathBuf,
    /// Show what would happen without renaming
    #[arg(long)]
    dry_run: bool,
}

fn capture_date(path: &std::path::Path) -> Result<String> {
    let file = fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut reader = std::io::BufReader::new(file);
    let exif = exif::Reader::new().read_from_container(&mut reader)?;
    let field = exif
        .get_field(exif::Tag::DateTimeOriginal, exif::In::PRIMARY)
        .context("no DateTimeOriginal")?;
    let raw = field.display_value().to_string(); // "2024-07-14 18:03:22"
    Ok(raw.replace(':', "-").replace(' ', "_"))
}
```

**Windows-specific points**

- **Colons are illegal in Windows filenames**, which is why the snippet replaces them. A name like `2024-07-14_18-03-22.jpg` is safe everywhere.
- **Case-insensitive filesystem**: `IMG_001.JPG` and `img_001.jpg` are the same file. When checking for collisions, compare lowercase names.
- **Paths with non-ASCII characters**: use `Path`/`PathBuf` and `OsStr` throughout, never convert to `String` unless you're printing.
- **Renames across drives fail** with `fs::rename`; that only matters if you later add a "move to another folder" feature.
- **Distribution**: build with the `x86_64-pc-windows-msvc` target and ship a single `.exe`. Set `[profile.release] strip = true` and `lto = true` in `Cargo.toml` to keep it small.

**Collisions**

Burst shots often share the same second. Append a counter: `2024-07-14_18-03-22_2.jpg`. Never overwrite — check `exists()` first and fail loudly if something unexpected is there.

Always make `--dry-run` the first thing users try; people are rightly nervous about tools that rename their photos.
""", "crates"),
U("I don't want async anywhere in this. I've read about tokio and it looks like way more "
  "complexity than a file renamer needs.", "noasync"),
A(r"""
Agreed — async would be the wrong tool here. A file renamer is disk-bound, and on a local SSD synchronous I/O is already fast. Async shines when you have thousands of concurrent network connections; it adds nothing for reading a few thousand JPEG headers.

**Staying fully synchronous**

Everything in the stack I listed is synchronous: clap, kamadak-exif, walkdir, anyhow and `std::fs`. Nothing will pull in tokio unless you add an HTTP client or similar later. You can confirm with:

```
cargo tree -i tokio
```

If that prints "nothing to print" or errors with "package not found", you're async-free.

**If you want it faster: threads, not async**

Reading EXIF is small I/O plus a bit of parsing. If a folder has tens of thousands of photos, simple parallelism helps, and **rayon** gives you that without any async:

```rust
use rayon::prelude::*;

let plans: Vec<(PathBuf, Result<String>)> = files
    .par_iter()
    .map(|p| (p.clone(), capture_date(p)))
    .collect();
```

Then do the actual renames sequentially, so collision handling stays simple and deterministic. Reading in parallel and renaming in order is a good pattern: the slow part is parallel, the risky part is serial.

**Plan first, then apply**

Structure the program in two phases:

```rust
struct Rename { from: PathBuf, to: PathBuf }

fn plan(files: &[PathBuf]) -> Result<Vec<Rename>> { /* compute targets, resolve collisions */ }
fn apply(plan: &[Rename], dry_run: bool) -> Result<()> {
    for r in plan {
        println!("{} -> {}", r.from.display(), r.to.display());
        if !dry_run {
            std::fs::rename(&r.from, &r.to)
                .with_context(|| format!("renaming {}", r.from.display()))?;
        }
    }
    Ok(())
}
```

This makes the dry run trivially correct — it's the same plan, just not applied — and it makes testing easy: unit-test `plan` with fake file lists.

**Undo log**

Since there's no async machinery to worry about, it's cheap to add safety: write the plan to `rename-log.csv` before applying it, with one `old,new` line per file. An `--undo rename-log.csv` flag can then reverse a run. Users trust tools with an undo.

**Keep compile times low**

Without tokio, your dependency tree stays small. Disable default features you don't need (for example `clap` with `default-features = false, features = ["derive", "std", "help"]`) if you care about build times on Windows, where linking is slower.
""", "threads"),
U("Formatting: I use rustfmt defaults but with max_width = 80, I read code on a small laptop "
  "screen a lot.", "width80"),
A(r"""
That's easy to set up and worth doing at the start so every file is consistent.

**rustfmt configuration**

Create `rustfmt.toml` in the project root:

```toml
max_width = 80
edition = "2021"
```

With `max_width = 80`, rustfmt also scales its derived heuristics (like `fn_call_width`, `struct_lit_width` and `chain_width`) proportionally, so you don't need to set them individually. Keep the rest at defaults as you prefer.

Run it with `cargo fmt`, and check it in CI with `cargo fmt --check`.

**Editor setup on Windows**

- **VS Code with rust-analyzer**: set `"editor.formatOnSave": true` and `"editor.rulers": [80]` in your settings so you see the limit.
- rust-analyzer reads `rustfmt.toml` automatically.

**Clippy**

Pair it with clippy for lints: `cargo clippy -- -D warnings` in CI. A couple of lints especially useful for a small CLI:

- `clippy::unwrap_used` (in `clippy.toml` or as `#![warn(clippy::unwrap_used)]`) to catch `unwrap()` calls that could crash on bad photos.
- `clippy::needless_pass_by_value` keeps function signatures idiomatic.

**Writing for 80 columns**

A few habits make narrow code read better in Rust:

- Break long method chains one call per line; rustfmt will do it, but naming intermediate values often reads better.
- Use `use` statements generously so paths like `std::collections::HashMap` don't eat the line.
- Prefer early returns with `?` over deep nesting:

```rust
fn target_name(path: &Path) -> Result<PathBuf> {
    let date = capture_date(path)?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("jpg")
        .to_lowercase();
    Ok(path.with_file_name(format!("{date}.{ext}")))
}
```

**Line endings**

On Windows, add a `.gitattributes` with `* text=auto eol=lf` so Git doesn't mix CRLF and LF. rustfmt has `newline_style = "Auto"` by default, which is fine, but consistent line endings in the repository avoid noisy diffs if anyone contributes from macOS or Linux.

**Editor on a small screen**

If you often read on a laptop, consider turning on rust-analyzer's inlay hints only on demand (there's a toggle keybinding), because type hints can push lines well past 80 columns visually even though the file itself is fine.
""", "rustfmt"),
]),
("2025-05-24 16:00", [
U("People want it to handle videos too, mostly iPhone .mov and Android .mp4. Most of them "
  "shoot on iPhones.", "videos"),
A(r"""
Videos are a good addition but they store dates differently from photos, so it needs a second code path. There's no EXIF in most video files; the capture time lives in the container metadata.

**Where the dates are**

- **MP4 and MOV** are both based on the ISO base media format (QuickTime structure). The `mvhd` (movie header) box has a `creation_time` field in seconds since **1904-01-01 UTC** — a classic gotcha.
- **iPhone .mov** files also contain Apple-specific metadata, `com.apple.quicktime.creationdate`, which includes the **local time and time zone offset**, e.g. `2024-07-14T18:03:22+0200`. That's the best value to use when present.
- **Android .mp4** usually only has `mvhd` creation time in UTC. Converting to local time needs the system time zone, which may not match where the video was shot.

**Crates**

- **mp4** can read the `mvhd` box for both MP4 and most MOV files.
- For the Apple metadata key, you'll need to read the `meta`/`keys`/`ilst` boxes. The `nom-exif` crate handles both images and QuickTime/MP4 metadata, including the Apple creation date, in one pure-Rust library. That could replace kamadak-exif entirely so you have a single metadata dependency.

Either way, everything stays synchronous, no async needed.

**Converting the 1904 epoch**

```rust
use chrono::{DateTime, TimeZone, Utc};

const MAC_EPOCH_OFFSET: i64 = 2_082_844_800; // seconds from 1904 to 1970

fn from_mvhd(secs_since_1904: u64) -> Option<DateTime<Utc>> {
    let unix = secs_since_1904 as i64 - MAC_EPOCH_OFFSET;
    Utc.timestamp_opt(unix, 0).single()
}
```

**Preference order per file**

1. Apple `creationdate` (has local time and offset) — iPhone videos.
2. `mvhd` creation time converted to local time — Android videos.
3. EXIF `DateTimeOriginal` — photos.
4. File modified time, only with a `--fallback-mtime` flag, and marked in the output so users know.

**Gotchas**

- Some apps (messengers, editors) write `creation_time = 0`, meaning 1904-01-01. Treat anything before 1990 as "missing".
- Live Photos produce a `.HEIC` and a `.MOV` with the same base name. Give them the same new base name so they stay paired — rename them as a group.
- Large videos: read only the header boxes; never load the whole file. The `mp4` crate reads boxes lazily when you give it a `BufReader` and the file size.

Since most of your users are on iPhones, I'd implement the Apple path first and test it with a dozen real files before worrying about Android edge cases.
""", "video_reply"),
U("Changed my mind on licensing: I was going to use MIT but my employer's open source policy "
  "prefers Apache-2.0, so it'll be Apache-2.0.", "license"),
A(r"""
Apache-2.0 is a good choice and common in the Rust ecosystem — many crates are dual-licensed MIT OR Apache-2.0. Switching before the first release is the easiest time to do it.

**What to change**

1. **LICENSE file**: replace the MIT text with the full Apache-2.0 text. Name it `LICENSE` (or `LICENSE-APACHE` if you might dual-license later). Use the official text unmodified.
2. **Cargo.toml**: use the SPDX identifier:

```toml
[package]
name = "exif-rename"
version = "0.1.0"
edition = "2021"
license = "Apache-2.0"
```

3. **NOTICE file** (optional but recommended under Apache-2.0 section 4): a short file with the project name and copyright line. If you include one, downstream redistributors must keep it.
4. **Source headers** (optional): some companies require a header in each file:

```rust
// Copyright 2025 <your employer or you>
// SPDX-License-Identifier: Apache-2.0
```

Check your employer's policy — it may specify the exact copyright holder (you vs. the company) and whether headers are required. Many corporate policies also require a CLA or DCO for outside contributions; a `CONTRIBUTING.md` stating "contributions are accepted under Apache-2.0" with DCO sign-off is the lightweight option.

**Dependencies**

Apache-2.0 is compatible with your planned dependencies: clap, chrono, anyhow, walkdir, rayon and nom-exif are MIT and/or Apache-2.0. To keep it that way as you add crates, use **cargo-deny**:

```toml
# deny.toml
[licenses]
allow = ["MIT", "Apache-2.0", "Apache-2.0 WITH LLVM-exception", "BSD-3-Clause", "Unicode-3.0", "ISC"]
```

Then run `cargo deny check licenses` in CI. It fails the build if a new dependency has an unexpected license — exactly the kind of thing an open source office likes to see.

**Why Apache-2.0 over MIT, briefly**

Apache-2.0 includes an explicit patent grant and a patent retaliation clause, and clearer terms for contributions. That's usually why corporate policies prefer it. For your users the practical difference is small: they can use the tool and the code freely either way.

**If you later want maximum compatibility**

The Rust convention of dual licensing "MIT OR Apache-2.0" is also acceptable to most corporate policies and lets downstream users pick. Worth asking your policy team whether that's allowed too.
""", "license_reply"),
U("First release target is end of June, and I'd like to publish it on crates.io and ship a "
  "Windows installer through winget.", "release"),
A(r"""
End of June is a realistic target for a 0.1.0. Publishing to crates.io is straightforward; winget takes a little more preparation because it wants a stable download URL and an installer or a portable executable.

**Before release checklist**

- `cargo clippy -- -D warnings` and `cargo fmt --check` clean (80 columns, as configured).
- Tests for the planning logic: collisions, Live Photo pairs, missing dates, 1904 timestamps.
- `--dry-run` and `--undo` tested on a copy of a real photo folder.
- README with install instructions, examples and a big note that `--dry-run` exists.
- `CHANGELOG.md`.

**crates.io**

```toml
[package]
name = "exif-rename"
version = "0.1.0"
license = "Apache-2.0"
description = "Rename photos and videos by their capture date"
repository = "https://github.com/<you>/exif-rename"
readme = "README.md"
keywords = ["exif", "photos", "rename", "cli"]
categories = ["command-line-utilities", "multimedia::images"]
```

Check the name is free, then `cargo publish --dry-run` and `cargo publish`. Users can then run `cargo install exif-rename`, though most of your Windows users won't have Rust installed — that's what winget is for.

**Release builds with GitHub Actions**

Build on a `windows-latest` runner for the `x86_64-pc-windows-msvc` target, and consider `aarch64-pc-windows-msvc` for the growing number of ARM laptops. Attach the `.exe` (zipped) to a GitHub Release for each tag. `cargo-dist` can generate this workflow for you, including checksums and an MSI installer.

**winget**

- winget supports **portable** packages (a zip or exe that's just put on the PATH), which suits a CLI tool. An MSI is nicer if you want an entry in "Apps & features".
- Create a manifest with `wingetcreate new <release-url>`; it fills in the SHA256 and asks for metadata. Submit it as a pull request to `microsoft/winget-pkgs`.
- Review usually takes a few days, sometimes longer if automated validation flags something, so submit by around **June 20** to make the end of June.
- For later versions, `wingetcreate update` with the new URL, or a GitHub Action that does it on release.

**Code signing**

Unsigned executables may trigger SmartScreen warnings. For a first release that's acceptable; mention it in the README. If your employer has a code-signing certificate and the policy allows, signing removes most of the friction.

**Version numbering**

Start at 0.1.0. Move to 1.0 once the CLI flags and the naming format are stable — people write scripts around CLI tools, so breaking flags after 1.0 hurts.
""", "release_reply"),
]),
], [
("What operating system do I and most of my users run?", ["windows"], "user-fact"),
("What's my position on using async in the renamer?", ["noasync"], "preference"),
("What line width do I format Rust code at, and why?", ["width80"], "preference"),
("Which phones do most of the tool's users record videos on?", ["videos"], "user-fact"),
("Which license is the project using?", ["license"], "update"),
("Where do I want to distribute the first release, and when?", ["release"], "user-fact"),
("Which crate did you suggest for reading photo metadata at first?", ["crates"], "reply-fact"),
("What character did you warn can't appear in Windows file names?", ["crates"], "reply-fact"),
("What did you recommend for speeding things up without async?", ["threads"], "reply-fact"),
("What's special about the epoch used in MP4 creation times, according to you?",
 ["video_reply"], "reply-fact"),
("Which tool did you suggest to check dependency licenses in CI?", ["license_reply"],
 "reply-fact"),
("What license was I planning before my employer's policy came up, and what changed in "
 "Cargo.toml?", ["license", "license_reply"], "multi"),
("By what date did you tell me to submit the winget manifest?", ["release_reply"],
 "reply-fact"),
("What did I first tell you the tool does, in our first session?", ["windows"], "temporal"),
("Which phones do most users film on, and which metadata did you say to read first for them?",
 ["videos", "video_reply"], "multi"),
]))

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-06", "Grace", "en", [
("2025-01-05 20:10", [
U("My fiancé and I are getting married next September in Vermont. We're thinking about 120 "
  "guests and a total budget of $40,000.", "guests120"),
A(r"""
Congratulations! September in Vermont is beautiful — and popular, so the first priority is the venue. Here's a planning framework for about 120 guests and $40,000.

**Budget allocation**

| Category | Share | Amount |
|---|---|---|
| Venue + catering + bar | 45% | $18,000 |
| Photography / video | 12% | $4,800 |
| Attire and beauty | 7% | $2,800 |
| Music / DJ | 6% | $2,400 |
| Flowers and decor | 8% | $3,200 |
| Rentals (if venue lacks them) | 5% | $2,000 |
| Stationery, favors, gifts | 3% | $1,200 |
| Officiant, license, transport | 4% | $1,600 |
| **Buffer** | **10%** | **$4,000** |

At 120 guests, catering and bar at roughly $110–150 per person is the dominant cost. That's why guest count is the most powerful budget lever you have.

**Vermont specifics**

- **Peak season**: September and early October (foliage) book 12–18 months ahead at popular venues. You're at about 20 months, which is good, but start touring now.
- **Barn and farm venues** often rent only the space; you bring catering, rentals, restrooms and sometimes power. They look cheaper at first and end up comparable. Ask for a list of everything not included.
- **Inns and resorts** often include catering, tables and chairs, and have lodging for guests, which matters in rural Vermont.
- **Weather**: September evenings can drop into the 40s°F. If it's outdoors, budget for a tent with sidewalls and possibly heaters.
- **Lodging**: reserve room blocks early near the venue; many guests will travel.

**First steps (January–March)**

1. Agree on your top three priorities as a couple (e.g., food, photos, music). Spend more there, less elsewhere.
2. Draft a guest list and split it into "must invite" and "would like to invite". The 120 number becomes much more real on paper.
3. Tour 4–6 venues; ask each for a sample all-in cost for your guest count.
4. Book the venue, then photographer (the best ones book early too).

**Timeline overview**

- 12–18 months: venue, photographer, caterer (if separate).
- 9–12 months: save-the-dates, attire, band/DJ, florist.
- 6–8 months: invitations design, rentals, officiant, hotel blocks.
- 3–4 months: send invitations, menu tasting.
- 1 month: final count, seating chart, timeline for vendors.

What are the top priorities for the two of you? That'll shape where the flexible money goes.
""", "budget_alloc"),
U("Our top priorities are food and a great photographer. I don't care much about flowers, and "
  "neither of us wants a DJ, we'd rather have a live band.", "priorities"),
A(r"""
That gives a clear direction: shift money toward catering and photography, accept that a band costs more than a DJ, and trim flowers hard.

**Revised allocation for $40,000**

| Category | Before | Now |
|---|---|---|
| Venue + catering + bar | $18,000 | $19,000 |
| Photography | $4,800 | $5,500 |
| Live band | $2,400 | $4,500 |
| Flowers and decor | $3,200 | $1,200 |
| Attire and beauty | $2,800 | $2,500 |
| Rentals | $2,000 | $2,000 |
| Stationery, favors, gifts | $1,200 | $800 |
| Officiant, license, transport | $1,600 | $1,500 |
| Buffer | $4,000 | $3,000 |

I lowered the buffer from 10% to 7.5% to fund the band; I wouldn't go lower.

**Food**

- Ask caterers about **family-style service**: it feels generous, encourages conversation, and is often no more expensive than plated.
- A **local, seasonal menu** is a strength in Vermont in September — apples, squash, corn, cheese from local creameries. Caterers often price in-season menus better.
- Do a tasting before signing with a caterer, not after.
- Late-night snack (e.g., maple donuts or wood-fired pizza) is usually cheap per guest and people remember it.

**Photography**

- Book 8 hours of coverage: getting ready, ceremony, portraits, reception through first dances and some dancing.
- A **second shooter** is worth it at 120 guests.
- Look at **full galleries**, not just the highlight reel; ask how they handle dim barns or tent lighting.
- Schedule portraits around **golden hour**; in Vermont in mid-September sunset is around 7pm.

**Live band**

- Band prices in New England range widely; a 4–5 piece for 4 hours runs $3,500–7,000. Smaller trios with a good playlist for breaks can be $2,500–4,000.
- Check the venue's **noise curfew** and power supply; rural venues sometimes end amplified music at 10pm.
- Ask if the band can provide ceremony music (an acoustic duo from the band) — often a small add-on.

**Flowers on a small budget**

- Bouquet, boutonnieres, and a few arrangements for the ceremony that get moved to the reception.
- Use greenery, candles and local grocery or farm flowers for tables.
- Dried or potted herbs as centerpieces double as favors.

Next step: visit venues with the food priority in mind — ask whether you can choose your own caterer or must use theirs.
""", "priorities_reply"),
]),
("2025-02-16 19:30", [
U("We booked the venue! It's a farm near Woodstock, and the date is September 20. It's a "
  "bring-your-own-caterer place.", "venue"),
A(r"""
Congratulations — that's the biggest decision done. A farm venue with your own caterer fits your food priority perfectly, but it also makes you responsible for some logistics a resort would handle. Here's what to sort out next.

**What a bring-your-own-caterer farm usually needs**

- **Caterer with off-site experience.** They need to bring a mobile kitchen or cook in a barn with limited power and water. Ask each caterer whether they've worked at this farm or similar sites.
- **Rentals**: tables, chairs, linens, plates, glasses, flatware. Some caterers include these; otherwise a rental company will. For 120 guests this can be $2,000–4,000 — so the $2,000 rental line may be tight.
- **Tent**: if the farm doesn't have a covered space for 120, you'll need one. A 40' × 80' frame tent for 120 seated guests plus a dance floor and band runs $5,000–8,000 with sides and lighting. This is the biggest risk to your budget — ask the farm what previous couples have done.
- **Restrooms**: luxury restroom trailers for 120 guests are around $1,500–2,500.
- **Power**: a generator if the venue doesn't have enough for the band and caterer.
- **Parking and shuttles**: rural roads and dark fields; a shuttle from the hotel block is safer and means guests can drink.

**Timeline from now**

- **February–March**: book photographer and band for September 20. Saturdays in September go first.
- **March–April**: choose caterer after tastings. Ask for references from this farm.
- **April**: get rental and tent quotes, confirm restroom and power needs.
- **May**: save-the-dates (if not already), hotel room blocks in Woodstock and Quechee.
- **June**: invitations design.
- **July 1**: send invitations (about 11 weeks out), RSVP deadline August 15.
- **August**: final menu, rentals count, seating chart.
- **September 13**: final headcount to caterer and rentals.

**Weather plan**

Late September near Woodstock: daytime 60s°F, evenings in the 40s, and a real chance of rain. With a tent you're covered; without one, you need a barn or indoor space large enough for everyone.

**Insurance**

Many farm venues require **event liability insurance** (often $200–400), and a liquor liability policy if you serve alcohol without a licensed bartender. Get a licensed bar service if possible.

Bring-your-own-caterer usually ends up close to a full-service venue in cost, but you get much more control over the food, which is your priority.
""", "farm"),
U("Guest list update: after going through both families, we're now at 150, not 120. His side "
  "is bigger than we thought.", "guests150"),
A(r"""
That's a common surprise, and it's good to find it now rather than after invitations. Thirty extra guests affects nearly every line — catering, rentals, tent size, restrooms and seating — so let's see what 150 means for the $40,000.

**What changes with 150 guests**

| Item | At 120 | At 150 |
|---|---|---|
| Catering + bar (~$125/person) | $15,000 | $18,750 |
| Rentals | $2,500 | $3,100 |
| Tent (larger size, e.g. 40' × 100') | $6,500 | $8,000 |
| Restrooms | $1,800 | $2,200 |
| Stationery | $800 | $950 |

That's roughly **$6,500 more** than the 120-guest plan, and your buffer was only $3,000.

**Options**

1. **Raise the budget** to around $46,000, if family contributions or savings allow.
2. **Trim elsewhere**, keeping your priorities (food, photography, band):
   - Band: a 3-piece instead of 5-piece saves $1,000–1,500.
   - Attire and beauty: $500.
   - Flowers already minimal, but reduce to bouquet, boutonnieres and greenery: $300–500.
   - Switch from a full open bar to beer, wine and a signature cocktail: $1,500–2,500 at 150 guests.
   - Late-night snack: keep it — it's cheap per head.
3. **Reduce the list**: "no plus-ones unless in a relationship" and "no kids except family" are the usual rules. They often cut 10–20 people.

**A combination that works at $40,000**

- Beer, wine and one signature cocktail: saves ~$2,000.
- 3-piece band with a playlist during breaks: saves ~$1,200.
- Attire and flowers: save ~$800.
- Kids' rule and plus-ones rule: bring it to about 140: saves ~$1,800.

That closes most of the gap while protecting the food and photography.

**Seating and space**

150 seated at rounds of 10 means 15 tables. With a dance floor and the band, a 40' × 100' tent is right. Check that the farm's field can fit that footprint and still allow the caterer's area.

**Restrooms**

For 150 guests over 6 hours with alcohol, plan for at least 2 restroom trailers or a 4-station unit.

Decide the guest-list rule together with his family soon, before save-the-dates go out — it's much easier before anyone has been invited.
""", "guests_reply"),
]),
("2025-04-06 11:00", [
U("We found a caterer we love, Hearth & Field. They quoted $118 per person. My fiancé is "
  "vegetarian so at least one main has to be vegetarian, ideally a really good one.", "caterer"),
A(r"""
$118 per person is within the range we planned, and a caterer you love is the best outcome for your top priority. Let's make sure the quote covers what you expect and that the vegetarian main is a star rather than an afterthought.

**Check what's in the $118**

Ask Hearth & Field for an itemized proposal that shows:

- Food: appetizers, salad, mains, sides, late-night snack?
- Service staff and how many per guest (for family style, about 1 server per 10–12 guests).
- Kitchen setup: do they bring a mobile kitchen, and what do they need from the farm (water, power)?
- Rentals: plates, flatware, glassware, linens — included or separate?
- Service charge and gratuity (often 18–22%) and Vermont meals tax (9%).
- Cake cutting, coffee service, and cleanup.

At 150 guests, $118 base becomes about **$17,700**, but with a 20% service charge and 9% tax it's closer to **$22,800**. Compare that with the $18,750 we planned for catering and bar — you might still need the beer-and-wine bar to fit.

**A great vegetarian main**

Since your fiancé is vegetarian, design the menu so the vegetarian main is something meat-eaters would choose too:

- **Wild mushroom and farro risotto** with local cheese — rich, seasonal in September.
- **Stuffed acorn squash** with wild rice, cranberries and pecans.
- **Eggplant parmesan** built in layers, served family-style.
- **Handmade ricotta gnocchi** with brown butter and sage.

With family-style service, put the vegetarian main on every table alongside the meat option; everyone shares, and your fiancé doesn't have a special plate.

Also check that sides and salads are vegetarian (no bacon in the beans, no anchovy in the dressing) so there's plenty to eat.

**Tasting**

Schedule the tasting soon; include two vegetarian options to compare. Bring notes on guest dietary needs: collect them on the RSVP card (vegetarian, vegan, gluten-free, allergies).

**Contract**

- Deposit and payment schedule.
- Final count deadline — usually 10–14 days before.
- Cancellation and weather policy.
- Who provides the head chef on the day.

Once the contract is signed, share the caterer's site requirements with the farm and the tent company so all three plan around the same layout.
""", "caterer_reply"),
U("Small change: we're moving the ceremony time from 4pm to 3pm so the portraits can happen "
  "before it gets dark.", "ceremony3"),
A(r"""
Good call. In Vermont on September 20, sunset is around 6:50pm, so a 3pm ceremony gives your photographer comfortable light for family photos and couple portraits, plus golden hour near 6:15–6:45. Here's a day timeline built around it.

**Wedding day timeline (September 20)**

| Time | Event |
|---|---|
| 10:00 | Hair and makeup begin |
| 12:30 | Photographer arrives, getting-ready photos |
| 1:30 | First look (optional) and couple portraits |
| 2:15 | Wedding party photos |
| 2:30 | Guests arrive; shuttle from hotel drops off |
| 3:00 | **Ceremony** (about 25 minutes) |
| 3:30 | Family photos (have a list ready, 20 minutes) |
| 3:30–4:45 | Cocktail hour with band trio or acoustic set |
| 4:45 | Guests seated in the tent |
| 5:00 | Entrances, welcome, toasts |
| 5:15 | Dinner served family-style |
| 6:15–6:45 | Golden hour portraits (15 minutes, slip out between courses) |
| 7:00 | First dance, parent dances |
| 7:15 | Dancing |
| 8:30 | Cake cutting |
| 9:30 | Late-night snack |
| 10:00 | Last dance (check the farm's music curfew) |
| 10:15 | Shuttles back to hotel |

**Why this works**

- **Family photos** right after the ceremony, while everyone is together and the light is good.
- **Dinner by 5:15** — guests won't be hungry and grumpy by 7pm, and the caterer can serve in daylight, which is easier in a field.
- **Golden hour** falls neatly in the dinner window.

**Things to update**

- Invitations: "three o'clock in the afternoon."
- Hotel shuttle schedule: first shuttle leaves at 2:00–2:15.
- Caterer and band: new arrival times.
- Photographer: confirm coverage hours (12:30–8:30 is 8 hours, matching the plan).
- Tent lighting: the tent will need string lights from about 7pm; test them at setup.

**Weather**

If it rains, do portraits in the barn or under the tent edges; a good photographer will scout sheltered spots on the day before.
""", "timeline_reply"),
]),
], [
("How many guests are we planning for now?", ["guests150"], "update"),
("What's our overall wedding budget?", ["guests120"], "user-fact"),
("Which two things matter most to us for the wedding?", ["priorities"], "preference"),
("What kind of music do we want at the reception?", ["priorities"], "preference"),
("Where is the venue, and what's the wedding date?", ["venue"], "user-fact"),
("What time does the ceremony start now?", ["ceremony3"], "update"),
("Who chose the caterer, what's their per-person price, and what dietary need does my "
 "partner have?", ["caterer"], "user-fact"),
("How big a tent did you say we'd need for the larger guest count?", ["guests_reply"],
 "reply-fact"),
("What vegetarian main dishes did you suggest?", ["caterer_reply"], "reply-fact"),
("What time is sunset on our wedding day, according to you?", ["timeline_reply"],
 "reply-fact"),
("How much did you say the bar change could save?", ["guests_reply"], "reply-fact"),
("What insurance did you mention the farm might require?", ["farm"], "reply-fact"),
("How much did the real catering cost come to once service charge and tax were added, and "
 "how did that compare with what we'd planned?", ["caterer", "caterer_reply"], "multi"),
("How many guests did we first plan for, before going through both families?", ["guests120"],
 "temporal"),
("What time was the ceremony originally going to start?", ["ceremony3"], "temporal"),
]))

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-07", "Henrik", "en", [
("2025-02-24 09:40", [
U("We run a small SaaS on three Hetzner VMs with docker-compose. I'm the only ops person in a "
  "company of 12. Wondering whether we should move to Kubernetes.", "solo_ops"),
A(r"""
With one ops person and three VMs, the honest answer is "maybe, but only a lightweight version, and only if it solves a problem you actually have." Kubernetes is powerful, but a full self-managed cluster is a second job. Let's look at what you'd gain and the realistic options.

**What usually pushes teams off docker-compose**

- Deploys require SSH-ing into each VM and running commands, with downtime during restarts.
- No automatic restart on another machine when one VM dies.
- Configuration drift between the three VMs.
- No easy way to run several copies of a service behind a load balancer.

If two or more of those hurt today, some orchestration is worth it. If not, improving compose (CI-driven deploys, Ansible for VM config, health checks) may be the better use of your time.

**Options, from lightest to heaviest**

1. **Compose + automation**: GitHub Actions builds images, Ansible or a script deploys them, Caddy or Traefik in front. Lowest effort, no failover.
2. **Docker Swarm**: uses compose files almost unchanged and gives multi-node scheduling. Simple, but the ecosystem is quiet and you'll find fewer answers online.
3. **k3s**: a certified, lightweight Kubernetes distribution. One binary, embedded etcd for a three-node HA control plane, low memory overhead. You get the whole Kubernetes ecosystem (Helm charts, operators, cert-manager) without running the heavy parts.
4. **Managed Kubernetes** (EKS, GKE, AKS, or smaller providers): no control plane to run, but higher cost and you still manage everything inside the cluster.

**My recommendation for your situation**

**k3s on three Hetzner Cloud servers**, with:

- The **Hetzner Cloud Controller Manager** so Kubernetes `LoadBalancer` services create Hetzner load balancers automatically.
- The **Hetzner CSI driver** for persistent volumes.
- **cert-manager** for TLS.
- **Argo CD** for GitOps deploys: your cluster state lives in a Git repository, and deploys are pull requests. For a solo ops person, that audit trail and easy rollback are very valuable.
- **Stateful services (Postgres) handled carefully** — either stay on a dedicated VM at first, or use an operator like CloudNativePG once you're comfortable.

**Costs of the decision**

- Learning curve: expect 4–6 weeks part-time before you're confident.
- Day-2 operations: k3s upgrades every few months (the system-upgrade-controller automates it), backups of etcd, monitoring.
- Bus factor: you're still one person. Whatever you choose, write runbooks as you go.

Before going further: what's your budget for infrastructure, and are there any data location requirements? Both will narrow this down a lot.
""", "options"),
U("Hard limit: infrastructure spend has to stay under €600 a month. And all customer data has "
  "to stay inside the EU, we have a lot of German clients.", "budget600"),
A(r"""
Both constraints fit well with staying on Hetzner: their German and Finnish data centers keep everything in the EU, and their pricing leaves a lot of room under €600.

**Estimated monthly cost on Hetzner (k3s)**

| Item | Spec | Approx. €/month |
|---|---|---|
| 3 × control-plane + worker nodes | CPX31 (4 vCPU, 8 GB) | ~50 |
| 2 × extra workers for apps | CPX41 (8 vCPU, 16 GB) | ~60 |
| Load balancer | LB11 | ~6 |
| Block volumes for Postgres | 3 × 100 GB | ~15 |
| Object storage for backups | ~500 GB | ~6 |
| Storage Box for off-site backups | BX21 (5 TB) | ~13 |
| Floating IPs, snapshots | | ~10 |
| **Total** | | **~€160–180** |

Prices change, so check the current list, but you're likely at a third of your limit. That headroom matters: it lets you run a separate **staging cluster** (another ~€60) and still stay well under €600.

**Postgres without a managed service**

Hetzner doesn't offer managed databases, so you'd run Postgres yourself. Two good options:

- **CloudNativePG** operator in k3s: a primary and two replicas across nodes, automated failover, and continuous backups (WAL archiving) to S3-compatible object storage, which Hetzner provides.
- Keep Postgres on a **dedicated VM** with streaming replication to a second VM, and move it into the cluster later.

For a solo ops person, CloudNativePG is tempting because failover and point-in-time recovery are handled for you, but only adopt it once the rest of the cluster is stable.

**EU data residency**

- Use only Hetzner locations in Germany (Falkenstein, Nuremberg) or Finland (Helsinki).
- Watch for non-EU services slipping in: error tracking, log aggregation, email providers, CDNs. Pick EU-hosted options or self-host.
- Keep a data processing agreement (DPA) with Hetzner; they offer a standard one under GDPR.
- Backups must also stay in the EU — Hetzner's object storage and Storage Boxes do.

**Monitoring inside the budget**

Self-host **Prometheus + Grafana + Loki** via the kube-prometheus-stack Helm chart on the cluster. It costs only node resources, and keeps logs inside the EU.

**Comparison**

For reference, a similar setup on AWS in Frankfurt (EKS, RDS Multi-AZ, an ALB, NAT gateway, CloudWatch) usually lands around €900–1,200 per month, well above your limit.
""", "costs"),
U("I'm most at home in Terraform. I'd like as much as possible declared there rather than "
  "clicked together in a console.", "terraform"),
A(r"""
Terraform works well with Hetzner through the official `hcloud` provider, and you can get nearly everything declared: servers, networks, firewall, load balancer, volumes. The split I'd suggest is **Terraform for infrastructure, Argo CD for what runs inside the cluster**. Terraform managing Kubernetes resources directly gets awkward quickly.

**Layout**

```
infra/
  main.tf          # provider, backend
  network.tf       # private network and subnet
  servers.tf       # k3s nodes
  firewall.tf
  lb.tf
  outputs.tf
  cloud-init/
    k3s-server.yaml
cluster/           # watched by Argo CD
  apps/
  platform/        # cert-manager, ingress, monitoring, CNPG
```

**Servers with cloud-init installing k3s**

```hcl
resource "hcloud_server" "node" {
  count       = 3
  name        = "k3s-${count.index + 1}"
  server_type = "cpx31"
  image       = "ubuntu-24.04"
  location    = element(["fsn1", "nbg1", "hel1"], count.index)
  ssh_keys    = [hcloud_ssh_key.ops.id]
  user_data   = templatefile("${path.module}/cloud-init/k3s-server.yaml", {
    k3s_token  = random_password.k3s_token.result
    first_node = count.index == 0
  })
  network {
    network_id = hcloud_network.main.id
  }
}
```

Spreading nodes across `fsn1`, `nbg1` and `hel1` protects against one data center going down, with some latency between them (Helsinki adds around 20–25 ms). If that matters for etcd, keep all three in the German locations and use placement groups to spread them across hosts.

**State**

Store Terraform state remotely: Hetzner Object Storage works as an S3 backend. Enable versioning on the bucket. Don't keep state on your laptop — you're the only ops person, and a lost laptop shouldn't lose the infrastructure definition.

```hcl
terraform {
  backend "s3" {
    bucket                      = "tf-state-prod"
    key                         = "infra/terraform.tfstate"
    endpoint                    = "https://fsn1.your-objectstorage.com"
    region                      = "eu-central"
    skip_credentials_validation = true
    skip_region_validation      = true
    use_path_style              = true
  }
}
```

**Secrets**

Use an `HCLOUD_TOKEN` environment variable, never a committed value. For secrets inside the cluster, **SOPS with age keys** or **Sealed Secrets** lets you keep encrypted secrets in Git for Argo CD.

**Bootstrapping Argo CD**

One thing Terraform can do once: install Argo CD via the `helm_release` resource and point it at the `cluster/` folder. After that, Argo CD manages everything else, including its own upgrades.

**CI**

Run `terraform fmt -check`, `terraform validate` and `terraform plan` on every pull request, and apply only from the main branch.
""", "tf"),
]),
("2025-03-17 14:15", [
U("Our CTO wants to reconsider AWS because a big prospect asked about it. For context our peak "
  "traffic is about 200 requests per second.", "aws"),
A(r"""
That's a reasonable question to revisit when a large deal is involved, so let's compare properly rather than on instinct. 200 requests per second at peak is modest — either platform handles it with a few small instances — so the decision is about cost, operations and what the prospect actually needs.

**AWS in eu-central-1 (Frankfurt), comparable setup**

| Item | Approx. €/month |
|---|---|
| EKS control plane | ~70 |
| 3 × m6i.large worker nodes (on-demand) | ~230 |
| RDS Postgres Multi-AZ, db.m6g.large, 200 GB | ~330 |
| Application Load Balancer | ~25 + traffic |
| NAT gateway (1 AZ) + data processing | ~40–70 |
| EBS, snapshots, S3 backups | ~40 |
| CloudWatch logs and metrics | ~50–100 |
| Data transfer out (1–2 TB) | ~90–180 |
| **Total** | **~€880–1,050** |

With reserved instances or savings plans, maybe €700–800. Either way it's above the €600 limit, and data egress can surprise you.

**What you'd gain on AWS**

- Managed Postgres (RDS), so no database operations for you.
- A checkbox for enterprise buyers who want "AWS".
- Services like SES, SQS and KMS if you ever need them.

**What you'd lose**

- Budget headroom; you'd have to choose between staging and monitoring.
- Simplicity: IAM, VPC design and the AWS bill are a skill of their own.

**What prospects usually really ask for**

Often the question "are you on AWS?" actually means:

- Is data hosted in the EU?
- Do you have a DPA and a list of subprocessors?
- Backups, encryption at rest, disaster recovery?
- Some security certification (ISO 27001, SOC 2), or at least a security questionnaire.

Hetzner is ISO 27001 certified for its data centers, and you can answer most of these with good documentation. I'd suggest asking the prospect directly what's behind the question before committing to a migration that costs more every month.

**If you ever do need AWS**

The k3s + Argo CD setup we designed is portable: the `cluster/` folder would work on EKS with small changes (storage class, load balancer annotations). Terraform would need a new `infra/` for AWS. So choosing Hetzner now doesn't lock you in.
""", "aws_reply"),
U("Decision made: we're staying on Hetzner. The prospect was happy with EU hosting and our DPA.",
  "stay"),
A(r"""
Good outcome — you keep the budget headroom and a simpler platform. Now let's plan the migration from docker-compose on three VMs to k3s, in phases so nothing big happens at once.

**Phase 0 — preparation (week 1)**
- Terraform repository and remote state set up.
- Inventory of everything running today: services, cron jobs, volumes, environment variables, secrets, DNS records, TLS certificates.
- Container images built in CI and pushed to a registry (GitHub Container Registry or a self-hosted Harbor). Everything must come from CI, not from images built on a VM.

**Phase 1 — staging cluster (weeks 2–3)**
- Terraform creates a 3-node staging cluster.
- Argo CD installed; platform components deployed: ingress (Traefik ships with k3s), cert-manager, kube-prometheus-stack, Loki.
- Your applications converted from compose to Kubernetes manifests or a Helm chart. Tools like kompose give a rough start, but hand-written manifests are cleaner.
- Postgres in staging via CloudNativePG, restored from a copy of production.

**Phase 2 — production cluster, no traffic (week 4)**
- Same Terraform modules, production variables.
- Backups configured and **restore tested**: restore a CNPG backup into a fresh cluster and check it.
- Alerts to your phone for node down, pod crash loops, disk usage, certificate expiry and failed backups.

**Phase 3 — stateless services first (week 5)**
- Move stateless services one at a time, still pointing at the old database over the private network.
- Use a weighted DNS or a load balancer split to send a small share of traffic first.

**Phase 4 — database cutover (week 6)**
- The risky step; plan it carefully with a short maintenance window and a rollback.

**Phase 5 — cleanup (week 7)**
- Keep the old VMs running but idle for two weeks, then snapshot and delete.
- Write down runbooks: deploy, rollback, restore a database, add a node, rotate certificates.

**Rollback rule**

At each phase, define how to go back. Until the database cutover, rollback is just switching DNS back to the old VMs.

Tell me about the database — version, size, and how much downtime is acceptable — and I'll detail phase 4.
""", "migration"),
]),
("2025-04-07 20:30", [
U("The database is Postgres 14, about 80 GB. For the cutover we can afford at most 30 minutes "
  "of downtime, on a Sunday night.", "db"),
A(r"""
80 GB with a 30-minute window rules out a plain dump and restore — `pg_dump`/`pg_restore` of 80 GB plus index builds would likely take over an hour. The right approach is to keep a new cluster continuously in sync and make the cutover just a switch.

**Option A: CloudNativePG replica cluster via streaming replication (same major version)**

CloudNativePG can bootstrap a cluster as a **replica** of an external Postgres using `pg_basebackup` and then stream WAL. The cutover is promoting the replica. Downtime is a few minutes. The catch: it requires the **same major version**, so you'd stay on Postgres 14 and upgrade later.

**Option B: logical replication (allows upgrading to 16)**

Logical replication copies tables from the old Postgres 14 into a new CloudNativePG cluster running **Postgres 16**. You migrate and upgrade in one step.

Steps:

1. On the old server: set `wal_level = logical` (requires a restart — do it in a short window a week ahead), and make sure every table has a primary key.
2. Dump and restore the **schema only** into the new cluster.
3. Create a publication on the old server and a subscription on the new:

```sql
-- old server (PG 14)
CREATE PUBLICATION migrate FOR ALL TABLES;

-- new cluster (PG 16)
CREATE SUBSCRIPTION migrate
  CONNECTION 'host=10.0.1.5 dbname=app user=replicator password=...'
  PUBLICATION migrate;
```

4. Wait for the initial copy (hours for 80 GB; fine, it happens before the window), then watch lag with `pg_stat_subscription`.

**Cutover on Sunday night (target: under 20 minutes)**

1. Put the app in maintenance mode; stop writes.
2. Wait for replication lag to reach zero.
3. **Sync sequences** — logical replication doesn't copy sequence values:

```sql
SELECT 'SELECT setval(' || quote_literal(sequencename) || ', ' || last_value || ');'
FROM pg_sequences WHERE last_value IS NOT NULL;
```

Run the generated statements on the new cluster.
4. Switch the app's connection string to the CNPG service and start it.
5. Smoke test: log in, create a record, check a few reports.
6. Drop the subscription.

**Rollback**

Before opening traffic, create a reverse publication from the new cluster to the old so you can fall back without losing writes made after the cutover, at least for the first day.

**Rehearse**

Do the whole procedure on staging with a copy of production data first, and time each step. If the rehearsal takes more than 20 minutes, find out why before the real night.

I'd choose Option B: the upgrade to Postgres 16 comes almost for free, and Postgres 14 reaches end of life in late 2026 anyway.
""", "db_reply"),
U("Actually some good news: I got approval to hire a second ops engineer starting in May, so "
  "I won't be the only one doing this anymore.", "hire"),
A(r"""
That's a big improvement for the company's resilience, not just your workload. A second person changes the bus factor from one to two — and the timing is good, because they can join right as the new platform goes live. Here's how I'd prepare so they're productive quickly.

**Before they start**

- **Access plan**: separate accounts for everything — Hetzner project membership (not a shared token), GitHub, Argo CD (SSO if possible), Grafana, the password manager. No shared credentials.
- **Break-glass**: a sealed, documented procedure for emergency admin access, stored in the password manager.
- **Documentation**: the runbooks from the migration plan (deploy, rollback, database restore, add a node, rotate certificates) plus an architecture overview diagram.

**First two weeks**

1. Read the Terraform repository and the `cluster/` folder for Argo CD.
2. Do a deploy of a small change through a pull request.
3. **Restore a database backup into staging** following the runbook alone. If they get stuck, fix the runbook.
4. Shadow you during a planned maintenance task.

**First month**

- Take ownership of one area — monitoring and alerting is a good candidate.
- Review your Terraform and Kubernetes manifests with fresh eyes; new people spot what's undocumented.
- Start a simple **on-call rotation**: alternating weeks, with the off-week person as backup. For a 12-person SaaS, business-hours response plus best-effort nights is typical; be explicit about expectations and compensation.

**Working agreements**

- All infrastructure changes go through pull requests with the other person as reviewer, except emergencies (and emergencies get a follow-up PR).
- A shared incident log: what happened, impact, fix, follow-up.
- Weekly 30-minute ops sync.

**Timing with the migration**

If the database cutover happens before they arrive, that's fine — but consider keeping the **cleanup phase** for their first weeks; decommissioning the old VMs is a great way to learn where everything lived. If the cutover is planned for after May, have them take part in the staging rehearsal.

**Budget**

Add a few tools within the €600 limit that help a team of two: an on-call alerting service (or Grafana OnCall, self-hosted), and a status page. Both are cheap.
""", "onboard"),
]),
], [
("How many people handle operations right now, and how big is the company?", ["solo_ops"],
 "user-fact"),
("What's the ceiling on our monthly infrastructure bill?", ["budget600"], "user-fact"),
("Where does our customer data have to be stored?", ["budget600"], "user-fact"),
("Which infrastructure-as-code tool do I prefer to use?", ["terraform"], "preference"),
("Which cloud provider did we settle on?", ["stay"], "update"),
("Am I still the only ops engineer?", ["hire"], "update"),
("How much downtime can the database cutover take?", ["db"], "user-fact"),
("Which Kubernetes distribution did you recommend for us?", ["options"], "reply-fact"),
("Which operator did you suggest for running Postgres in the cluster?", ["costs"],
 "reply-fact"),
("Roughly what did you estimate an AWS setup would cost per month?", ["aws_reply"],
 "reply-fact"),
("Which Postgres version did you suggest moving to during the migration, and with what "
 "replication method?", ["db_reply"], "reply-fact"),
("What peak traffic did I mention, and what did you conclude about it?", ["aws", "aws_reply"],
 "multi"),
("What did you say a new hire should do alone in the first two weeks to test the runbook?",
 ["onboard"], "reply-fact"),
("Before the CTO raised AWS, what setup were we running and where?", ["solo_ops"],
 "temporal"),
("Who is joining me in ops and when, and what did you suggest they take ownership of first?",
 ["hire", "onboard"], "multi"),
]))

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-08", "Leah", "en", [
("2025-03-03 08:15", [
U("I'm in the last year of a PhD in ecology. Thesis submission deadline is August 31, four "
  "chapters, two of them already published as papers.", "deadline_aug"),
A(r"""
Two published chapters out of four by March is a strong position — roughly half the thesis exists in polished form. The work now is the two unpublished chapters, the introduction and discussion that tie everything together, and turning papers into chapters. Here's a plan to August 31.

**What "thesis" means on top of the papers**

- **General introduction** (8,000–12,000 words): the field, the gap, your aims, how the chapters connect.
- **Chapters 2 and 3** (published): reformat into the thesis style, add a short preface linking each to the overall aims, update references, and note co-author contributions as your university requires.
- **Chapters 4 and 5** (unpublished): the heavy lifting.
- **General discussion** (6,000–10,000 words): synthesis, limitations, future directions.
- Front matter: abstract, acknowledgements, declarations.

**Timeline (26 weeks)**

| Period | Focus |
|---|---|
| Mar 3 – Apr 13 (6 wks) | Chapter 4: finish analyses, full draft |
| Apr 14 – May 25 (6 wks) | Chapter 5: finish analyses, full draft |
| May 26 – Jun 22 (4 wks) | General introduction |
| Jun 23 – Jul 13 (3 wks) | General discussion |
| Jul 14 – Jul 27 (2 wks) | Reformat published chapters, front matter |
| Jul 28 – Aug 17 (3 wks) | Full revision from supervisor feedback |
| Aug 18 – Aug 31 (2 wks) | Proofreading, formatting, printing/submission |

I put the introduction after the data chapters on purpose: it's much easier to write when you know exactly what the thesis found.

**Weekly rhythm**

- A writing target in words or sections, not hours. For drafting weeks, **about 4,000 words per week** (800 per working day) is sustainable for most people; for analysis weeks, a target in finished figures or results sections.
- One fixed weekly review of progress against the table.
- Protect your best hours for writing; do email, admin and coding outside them.

**Risks**

- Analyses for chapters 4–5 that keep expanding. Set a "no new analyses after May 25" rule, and keep a list of ideas for future papers instead.
- Supervisor feedback turnaround. Agree on it explicitly now (e.g., two weeks per chapter).
- Formatting at the end always takes longer than planned; the template should be set up now.

What's your writing setup — Word, LaTeX, something else? And when do you work best?
""", "plan_aug"),
U("I write in LaTeX on Overleaf, my analyses are all in R. I'm sharpest in the mornings, and I "
  "work a part-time lab job on Tuesdays and Thursdays.", "setup"),
A(r"""
That setup works well for a thesis. A few adjustments will make the next six months smoother — especially linking R outputs to LaTeX so figures never go stale.

**Weekly schedule around your lab job**

| Day | Morning (best hours) | Afternoon |
|---|---|---|
| Mon | Writing 8:00–12:00 | Analysis in R |
| Tue | Lab job | Light tasks: references, figure tweaks |
| Wed | Writing 8:00–12:00 | Analysis / reading |
| Thu | Lab job | Email, admin, supervisor meeting prep |
| Fri | Writing 8:00–12:00 | Weekly review, plan next week |

Three full writing mornings a week is about 12 hours of high-quality writing. With the 4,000-words-per-week drafting target, that's roughly 330 words per focused hour — comfortable. Tuesdays and Thursdays get the tasks that don't need your sharpest thinking.

**Overleaf project structure**

```
main.tex
frontmatter/abstract.tex
chapters/01-introduction.tex
chapters/02-paper1.tex
chapters/03-paper2.tex
chapters/04-chapter4.tex
chapters/05-chapter5.tex
chapters/06-discussion.tex
figures/        % PDFs exported from R
refs.bib
```

In `main.tex`, use `\include{chapters/04-chapter4}` for each chapter, and `\includeonly{...}` while drafting to compile just the chapter you're working on. Overleaf compile times grow with a 200-page thesis; this keeps them fast.

**References**

Use **biblatex with the biber backend** rather than BibTeX:

```latex
\usepackage[style=authoryear, backend=biber, maxcitenames=2, uniquelist=false]{biblatex}
\addbibresource{refs.bib}
```

Keep `refs.bib` synced from Zotero with the Better BibTeX plugin so citation keys are stable.

**R to LaTeX without copy-paste**

- Save every figure from a script with a fixed name: `ggsave("figures/ch4-fig2-biomass.pdf", width = 16, height = 10, units = "cm")`. Set the width to your text width so font sizes match the thesis.
- Write key numbers to a small `.tex` file so results in the text update automatically:

```r
cat(sprintf("\\newcommand{\\chfourSlope}{%.2f}\n", coef(m)[2]),
    file = "figures/ch4-values.tex")
```

Then `\input{figures/ch4-values.tex}` and write "the slope was \chfourSlope".

- The **targets** R package can manage the pipeline so only changed analyses rerun.

Upload figures to Overleaf via its Dropbox or Git integration rather than by hand, so the R outputs and the thesis stay in sync.
""", "setup_reply"),
U("My supervisor wants to see a draft section every Friday. She's great but tends to take two or "
  "three weeks to send comments back.", "supervisor"),
A(r"""
A weekly draft rhythm is good for momentum, and two-to-three-week feedback is common. The trick is to stop waiting for comments and design the schedule so feedback arrives while you're working on something else.

**Make Friday submissions small and predictable**

- Send one coherent piece each Friday — a results section, a set of figures with captions, an introduction subsection — of about 2,000–4,000 words. Short, focused drafts get faster and better comments than whole chapters.
- Put a **three-line cover note** at the top: what this is, what you want feedback on ("Is the argument in 4.3 convincing?"), and what you don't ("Don't worry about references yet").
- Always send at the same time (e.g., Friday noon). Predictability helps her plan reading time.

**Pipeline, not queue**

With a 2–3 week lag, at any moment there are two or three drafts "out". That's fine if you treat feedback as an input to a later revision pass rather than a gate:

```
Week 1: send 4.1–4.2      Week 2: send 4.3      Week 3: send 4.4, receive 4.1–4.2 comments
Week 4: send 4.5, revise 4.1–4.2 in afternoons ...
```

Revise in afternoons; keep mornings for new writing.

**Track it**

A simple table in your notes:

| Sent | Section | Comments back | Revised |
|---|---|---|---|
| Mar 7 | 4.1 Methods | Mar 24 | Mar 26 |

It makes it easy to see where things are stuck and to give polite reminders.

**Adjust the end of the plan**

With a 2–3 week lag, the final full-thesis read needs more time. In the timeline I suggested, the full revision block is July 28 – August 17. I'd send her the complete draft by **July 21** and ask explicitly for comments by August 8. Agree on this date with her now, so she can plan around it (especially with summer holidays).

**Ask about priorities**

When comments come back late and you've moved on, ask for a quick "traffic light" on the big issues — green (fine), amber (revise), red (rethink) — for each section. That can be done in ten minutes and unblocks you before the full comments arrive.

**Other readers**

A peer in your lab or a postdoc can give faster feedback on clarity and structure; save your supervisor's time for the science and the argument.
""", "supervisor_reply"),
]),
("2025-05-12 08:30", [
U("Good news and bad news: my funding got extended, so the submission deadline is now October 15. "
  "But chapter 5's field data from spring came in messier than expected.", "deadline_oct"),
A(r"""
That's a helpful combination, actually: the extension arrives exactly when chapter 5 needs more time. Let's rebuild the plan around October 15 and give chapter 5's data the time it needs without letting it eat everything.

**Revised timeline (22 weeks from today)**

| Period | Focus |
|---|---|
| May 12 – Jun 1 (3 wks) | Finish Chapter 4 revisions; start Chapter 5 data cleaning |
| Jun 2 – Jul 13 (6 wks) | Chapter 5: analysis and full draft |
| Jul 14 – Aug 10 (4 wks) | General introduction |
| Aug 11 – Aug 31 (3 wks) | General discussion |
| Sep 1 – Sep 7 (1 wk) | Reformat published chapters, front matter |
| Sep 8 – Sep 28 (3 wks) | Full revision after supervisor's read |
| Sep 29 – Oct 15 (2.5 wks) | Proofreading, formatting, submission |

Send the full draft to your supervisor by **September 1**, with comments requested by September 19, accounting for her usual lag.

**Messy field data: triage first**

Spend the first week on an honest diagnosis rather than fixing:

1. **What's wrong?** Missing plots, sensor failures, inconsistent protocols, outliers, mislabeled samples?
2. **How much is affected?** If 15% of observations are problematic and randomly spread, you have a different chapter than if one whole site failed.
3. **Can the question still be answered?** Sometimes the honest answer is to narrow the chapter's scope.

**Cleaning in R, reproducibly**

- Never edit raw files. Keep `data/raw/` read-only and write a cleaning script producing `data/clean/`.
- Log every exclusion with a reason:

```r
excluded <- raw |>
  dplyr::filter(is.na(biomass) | sensor_flag == "fail") |>
  dplyr::mutate(reason = dplyr::case_when(
    is.na(biomass) ~ "missing biomass",
    sensor_flag == "fail" ~ "sensor failure"))
readr::write_csv(excluded, "data/clean/ch5-excluded.csv")
```

- Report the exclusions in the methods; examiners respect transparency about messy data far more than suspiciously clean results.
- Consider models that cope with imbalance: mixed-effects models (`lme4` or `glmmTMB`) with site as a random effect handle missing plots better than ANOVA.

**Keep the guardrail**

The "no new analyses" date moves to **July 13**. After that, chapter 5 is what it is, and new ideas go to the future-work list for the discussion.

**Use the breathing room wisely**

The extension is a chance to do the introduction properly, not to start a sixth chapter.
""", "plan_oct"),
U("Also, I'm moving off Overleaf. The thesis got slow to compile there, so I'm switching to VS "
  "Code with LaTeX Workshop and keeping it in Git.", "vscode"),
A(r"""
That's a good move at this stage. A local setup compiles a long thesis much faster, and Git gives you history and branches for revisions. Here's a setup that keeps it smooth.

**TeX distribution**

Install **TeX Live** (full scheme if disk allows, it avoids missing-package errors). On macOS that's MacTeX; on Windows, TeX Live or MiKTeX.

**VS Code + LaTeX Workshop**

In your workspace `settings.json`:

```json
{
  "latex-workshop.latex.recipe.default": "latexmk (lualatex)",
  "latex-workshop.latex.outDir": "build",
  "latex-workshop.latex.autoBuild.run": "onSave",
  "latex-workshop.view.pdf.viewer": "tab",
  "editor.wordWrap": "on"
}
```

Or keep the default pdfLaTeX recipe if your template doesn't need LuaLaTeX.

**latexmk**

Add a `.latexmkrc` in the project root so builds are identical from the terminal and the editor:

```perl
$pdf_mode = 1;          # pdflatex; use 4 for lualatex
$out_dir = 'build';
$bibtex_use = 2;        # run biber when needed
```

latexmk runs biber (for your biblatex references) and reruns LaTeX until cross-references settle.

**Git**

- `.gitignore`: `build/`, `*.aux`, `*.log`, `*.bcf`, `*.run.xml`, `*.synctex.gz`.
- **One sentence per line** in your `.tex` files. It makes diffs readable: a changed sentence shows as one changed line rather than a reflowed paragraph.
- Commit at the end of every writing session; tag the versions you send to your supervisor (`git tag draft-ch5-v1`).
- Push to a private remote (your university's GitLab or GitHub) as an off-site backup.

**Sharing drafts with your supervisor**

She probably doesn't want Git. Send PDFs, and use `latexdiff` to produce a marked-up version showing changes since the last draft:

```
latexdiff-vc --git -r draft-ch4-v1 --flatten main.tex
```

That helps a lot with her 2–3-week lag: she can see exactly what changed since her last comments.

**R figures**

The R pipeline now writes straight into the project's `figures/` folder — no more uploading to Overleaf. Make sure `figures/*.pdf` generated by R are either committed or reproducible with one command (`targets::tar_make()`).

**Speed tips**

Keep using `\includeonly` while drafting, and use draft mode for images if compilation is still slow (`\usepackage[draft]{graphicx}` temporarily).
""", "vscode_reply"),
U("One preference for the formatting: the graduate school allows either, and I want footnote "
  "citations off, author-year in the text, and references at the end of each chapter.",
  "refs_pref"),
A(r"""
Author-year citations with per-chapter reference lists are a natural fit for a thesis built partly from published papers — each chapter reads like a self-contained paper, which is how examiners in ecology usually like it.

**biblatex setup for per-chapter bibliographies**

```latex
\usepackage[
  style=authoryear,
  backend=biber,
  maxcitenames=2,
  maxbibnames=10,
  uniquelist=false,
  refsection=chapter,   % new reference section at every \chapter
  giveninits=true,
  doi=true, url=false, isbn=false
]{biblatex}
\addbibresource{refs.bib}
```

`refsection=chapter` starts a new reference section automatically at each `\chapter`, so citations are numbered and collected separately per chapter.

At the end of each chapter file:

```latex
\printbibliography[heading=subbibliography, title={References}]
```

`subbibliography` makes it a section-level heading inside the chapter rather than a new chapter.

**Citation commands**

- `\textcite{smith2020}` → Smith and Jones (2020)
- `\parencite{smith2020}` → (Smith and Jones 2020)
- `\parencite[see][p. 12]{smith2020}` → (see Smith and Jones 2020, p. 12)

If you previously used `\cite` everywhere, a quick search-and-replace to `\parencite` or `\textcite` avoids inconsistent output.

**No footnote citations**

Since you want footnotes for notes only, avoid `\footcite` and the `verbose` styles. If any old chapter used them, search for `\footcite` and replace.

**Matching journal style in published chapters**

Your published chapters may have used a different citation style in the journal. Reformatting them to author-year is normal; the thesis should be internally consistent.

**Author names and "et al."**

`maxcitenames=2` gives "Smith et al. 2020" for three or more authors in the text, and `maxbibnames=10` lists up to ten authors in the reference list. Check your graduate school's guidelines; some want all authors listed.

**Biber and Git**

Biber writes `.bbl` and `.bcf` files into `build/`; they're already ignored in the `.gitignore` we set up. If biber fails after adding a new reference, clearing the build directory (`latexmk -C`) is usually enough.

**Consistency check**

Before submission, run a search for unresolved citations in the log (`Citation ... undefined`), and read the reference list of each chapter once for duplicated entries, which often appear when Zotero has two versions of the same paper.
""", "refs_reply"),
]),
], [
("When is my thesis due now?", ["deadline_oct"], "update"),
("How many chapters does my thesis have, and how many are published?", ["deadline_aug"],
 "user-fact"),
("What time of day do I write best?", ["setup"], "preference"),
("Which days am I at my part-time lab job?", ["setup"], "user-fact"),
("What editor am I writing the thesis in now?", ["vscode"], "update"),
("How long does my supervisor usually take to return comments?", ["supervisor"], "user-fact"),
("How do I want citations and reference lists laid out?", ["refs_pref"], "preference"),
("How many words a week did you suggest as a drafting target?", ["plan_aug"], "reply-fact"),
("Which bibliography backend did you recommend?", ["setup_reply"], "reply-fact"),
("Which R package did you suggest to manage the analysis pipeline?", ["setup_reply"],
 "reply-fact"),
("What tool did you suggest to show my supervisor what changed between drafts?",
 ["vscode_reply"], "reply-fact"),
("What option makes biblatex start a new reference list at each chapter?", ["refs_reply"],
 "reply-fact"),
("When did you say I should send my supervisor the full draft under the new deadline, and why "
 "that early?", ["plan_oct", "supervisor"], "multi"),
("What was my original submission date, before the funding news?", ["deadline_aug"],
 "temporal"),
("Which editor did I move to and why, and what build tool configuration did you give me for it?",
 ["vscode", "vscode_reply"], "multi"),
]))

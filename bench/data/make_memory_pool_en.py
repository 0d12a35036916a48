"""Build memory_pool_en.json: English memory pools, one memory per session, searched
tenant-wide. Each pool is one user's memory store (third-person facts, events, preferences,
plans, trivial notes, near-duplicates and updates); the questions are what the user just said
to the agent (or a direct question), with the 1-3 memories needed to answer it as evidence.

Run ``python bench/data/make_memory_pool_en.py [N]`` to rewrite the JSON (byte-identical each
run); N > 0 prints N sample questions per pool with their evidence texts.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _memory_pool import Pool, main

TRIVIA = """
Had leftover pasta for lunch
It rained all afternoon
Picked up paper towels and dish soap at the store
Finished the last episode of a crime drama
Replaced the phone screen protector
Mailed a package at the post office
Had an iced coffee mid-afternoon
Swapped the summer duvet for the winter one
Changed a burnt-out bulb in the hallway
Temperature dropped sharply overnight
Ate a burrito bowl with coworkers
Took the car through the car wash
Cleared out the closet and donated a bag of clothes
Watched a baseball game on TV
Got a haircut
Bought a small succulent for the windowsill
Online order of slippers arrived
Updated the phone to the latest OS
Paid the phone bill
Slept in until almost ten on Sunday
Power went out for twenty minutes
Threw out expired food from the fridge
Had oatmeal with blueberries for breakfast
Bought a paper planner for next year
Mouse stopped working; bought a wireless one
Picked up apples and bananas at the farmers market
Listened to a podcast episode about budgeting
Watched a cooking video on YouTube
Took a jacket to the dry cleaner
Home internet was down for an hour
Walked over ten thousand steps today
Bought a box of masks at the pharmacy
Ran out of laundry detergent
It was hot, AC ran all day
Bought a new phone case
Got a parking ticket downtown
Took the recycling out
Binge-watched two episodes of a sitcom
Picked up a package from the locker
A hanger in the closet snapped
Missed the bus and was ten minutes late
Bought a set of new bath towels
Bought a longer charging cable
Watched a movie that was just okay
Almost out of trash bags
Sat in traffic for half an hour
Browsed a travel guide at the bookstore
Air quality was poor, stayed inside
Booked a dental cleaning for next week
Renewed a library book online
"""

POOLS: list[Pool] = [
dict(id="en-01", user="Priya", memories="""
2023-05-06 User is Priya Shah, lives in Ballard, Seattle #home
2023-05-06 Priya is a product manager at a logistics software company #job
2023-05-13 Priya's husband Arjun is a high school physics teacher #husband
2023-05-13 Daughter Maya is 9; son Dev is 5 #kids
2023-05-20 Priya has a beagle named Biscuit, 4 years old #dog
2023-05-20 Biscuit's vet is Dr. Okafor at Greenwood Animal Clinic #vet1
2023-05-27 Priya is allergic to shellfish #shellfish
2023-06-03 Maya takes violin lessons on Saturday mornings #violin
2023-06-10 Dev started swim lessons on Wednesdays #devswim
2023-06-17 Priya runs three mornings a week before work #run
2023-06-24 Priya is training for the Seattle half marathon in November #half
2023-07-08 Priya's mother-in-law visits every summer for a month #mil
2023-07-15 Priya prefers window seats and always flies Alaska Airlines #flights
2023-07-29 Priya drinks chai, not coffee, and likes it less sweet #chai
2023-08-12 Biscuit ate a sock and needed an X-ray #sock
2023-08-26 Priya's team is moving to a new warehouse routing product #product
2023-09-09 Maya started fourth grade at Whittier Elementary #school
2023-09-23 Priya has a standing Tuesday 1:1 with her manager Lauren #manager
2023-10-07 Priya wants to learn to bake sourdough
2023-10-21 Biscuit gets anxious during fireworks #fireworks
2023-11-12 Priya finished the half marathon in 2:04 #halfdone
2023-11-26 Family plans a trip to Pune in December to visit Priya's parents #pune
2023-12-10 Priya's parents live in Pune; father has type 2 diabetes #parents
2024-01-07 Priya got back from Pune; the kids loved it
2024-01-21 Priya and Arjun are looking for a bigger house #househunt
2024-02-04 They want at least four bedrooms and a yard for Biscuit #houseneeds
2024-02-18 Budget for the house is about 950k #budget
2024-03-03 Priya is considering Shoreline for better schools #shoreline
2024-03-17 Maya's violin lessons moved to Thursday after school #violin2
2024-03-31 Dev is afraid of the dark and uses a night light
2024-04-14 Offer accepted on a house in Shoreline #house
2024-04-28 Closing date on the Shoreline house is June 14 #closing
2024-05-12 Priya got promoted to senior product manager #promo
2024-05-26 Priya's new manager is Rafael; Lauren left the company #manager2
2024-06-09 Family moved into the Shoreline house #moved
2024-06-23 Biscuit's new vet is Dr. Lin at Shoreline Pet Hospital #vet2
2024-07-07 Mother-in-law is staying for six weeks this summer #mil2
2024-07-21 Priya started a vegetable garden in the new yard #garden
2024-08-04 Dev is starting kindergarten at Echo Lake Elementary #devschool
2024-08-18 Maya now goes to Echo Lake too, fifth grade #mayaschool
2024-09-01 Priya switched her runs to evenings after the move #run2
2024-09-15 Priya signed up for a full marathon next spring #marathon
2024-09-29 Biscuit was diagnosed with mild hip dysplasia #hips
2024-10-13 Dr. Lin suggested joint supplements and shorter walks for Biscuit #hipsplan
2024-10-27 Arjun started coaching the school robotics club #robotics
2024-11-10 Priya is hosting Thanksgiving for 12 people #thanks
2024-11-24 Two Thanksgiving guests are vegan #vegan
2024-12-08 Maya wants to switch from violin to cello #cello
2024-12-22 Maya started cello lessons; violin is finished #cello2
2025-01-05 Priya's marathon is the Vancouver Marathon on May 4 #vancouver
2025-01-19 Priya strained her calf on a long run #calf
2025-02-02 Physical therapist said no running for three weeks #calfpt
2025-02-16 Dev lost his first tooth
""", questions=[
    ("What's my dog's vet called again? I need to book a checkup.", ["vet2"], "update", "en"),
    ("Biscuit keeps limping after walks, anything I should keep in mind?", ["hips", "hipsplan"], "dialogue", "en"),
    ("Thinking of taking the kids somewhere fun this weekend, any ideas near us?", ["moved", "kids"], "dialogue", "en"),
    ("When is Maya's music lesson these days?", ["cello2"], "update", "en"),
    ("Which instrument does Maya play now?", ["cello2"], "update", "en"),
    ("I'm booking flights for a work trip to Chicago, can you handle it?", ["flights"], "dialogue", "en"),
    ("We're ordering seafood for the team lunch, what should I get for myself?", ["shellfish"], "dialogue", "en"),
    ("Planning Thanksgiving dinner, help me think about the menu.", ["thanks", "vegan"], "dialogue", "en"),
    ("Is it okay if I squeeze in a run tomorrow morning?", ["calf", "calfpt"], "dialogue", "en"),
    ("What was my half marathon time?", ["halfdone"], "direct", "en"),
    ("Which marathon am I doing, and when?", ["vancouver"], "direct", "en"),
    ("Who do I have my weekly 1:1 with now?", ["manager2"], "update", "en"),
    ("We're having fireworks on the Fourth again, and I'm worried about the dog.", ["fireworks"], "dialogue", "en"),
    ("When did we close on the house?", ["closing"], "direct", "en"),
    ("My mother-in-law is coming soon — how long did she stay last time?", ["mil2"], "direct", "en"),
    ("Ordering drinks for the morning meeting, what do I like?", ["chai"], "dialogue", "en"),
    ("What club does my husband coach?", ["robotics"], "direct", "en"),
    ("Which school do the kids go to now?", ["devschool", "mayaschool"], "update", "en"),
    ("我爸的血糖狀況是什麼？我想寄點東西給他", ["parents"], "cross-lingual", "zh"),
    ("我女兒現在學什麼樂器？", ["cello2"], "cross-lingual", "zh"),
    ("What did I get promoted to last year?", ["promo"], "direct", "en"),
    ("Dev's class is doing a swim day, has he had lessons?", ["devswim"], "direct", "en"),
    ("Should I leave earlier for the office tomorrow? How long is my commute now?", ["commute2"], "update", "en"),
    ("My sister is coming to stay, remind me where she flies in from.", ["anjali"], "direct", "en"),
]),
dict(id="en-02", user="Marcus", memories="""
2023-08-20 User is Marcus Reed, lives in Logan Square, Chicago #home
2023-08-20 Marcus teaches chemistry at a public high school #job
2023-08-27 Marcus coaches the JV basketball team #coach
2023-09-03 Marcus's girlfriend Keisha is a nurse practitioner #gf
2023-09-10 Marcus plays bass in a funk cover band called The Low Ends #band
2023-09-17 Band rehearses Thursday nights in a garage in Avondale #rehearsal
2023-09-24 Marcus drives a 2012 Honda Civic #car
2023-10-01 Marcus has high cholesterol, LDL was 165 #ldl1
2023-10-08 Doctor told Marcus to cut back on red meat and fried food #diet
2023-10-15 Marcus's brother Andre lives in Atlanta #brother
2023-10-22 Marcus started an online master's in educational leadership #masters
2023-11-05 Masters classes are Monday and Wednesday evenings #classes
2023-11-19 JV basketball season starts the week after Thanksgiving #season
2023-12-03 Marcus hates cilantro #cilantro
2023-12-17 The Civic's transmission is slipping #trans
2024-01-07 Mechanic quoted 3,200 dollars for the transmission #quote
2024-01-14 Marcus decided not to fix the Civic #nofix
2024-01-28 Marcus bought a used 2019 Mazda CX-5 #car2
2024-02-11 Marcus's JV team finished 14-6 #record
2024-02-25 Keisha's birthday is March 9 #gfbday
2024-03-10 Marcus took Keisha to a jazz club for her birthday
2024-03-24 Marcus started cooking more fish and beans #fish
2024-04-07 Marcus is lactose intolerant, uses oat milk #lactose
2024-04-21 Band has a gig at a brewery in Pilsen on May 18 #gig
2024-05-05 Marcus bought a new five-string bass #bass
2024-05-19 Marcus's LDL dropped to 128 #ldl2
2024-06-02 Summer break; Marcus is teaching summer school in July #summer
2024-06-16 Marcus and Keisha visited Andre in Atlanta
2024-06-30 Andre is getting married next April in Savannah #wedding
2024-07-14 Marcus will be best man at Andre's wedding #bestman
2024-07-28 Marcus and Keisha signed a lease together in Avondale #move
2024-08-11 Moved to the Avondale apartment; rent is 2,150 #rent
2024-08-25 Marcus is now the varsity assistant coach, not JV #coach2
2024-09-08 Practice is every weekday 3:30 to 5:30 #practice
2024-09-22 Marcus strained his lower back moving furniture #back
2024-10-06 Marcus finished the first year of the master's with a 3.9 GPA #gpa
2024-10-20 Keisha started working night shifts at Rush #gfnights
2024-11-03 Band rehearsals moved to Sunday afternoons #rehearsal2
2024-11-17 Marcus wants to run a 5K in the spring #5k
2024-12-01 Marcus is writing his capstone on teacher retention #capstone
2024-12-15 Marcus's mom moved from Detroit to Atlanta to be near Andre #mom
2025-01-12 Marcus needs a suit for the wedding, charcoal gray #suit
2025-01-26 Andre's wedding date is April 19 #weddingdate
2025-02-09 Marcus has to give a best man speech and is nervous #speech
""", questions=[
    ("Keisha's birthday is coming up again, what did we do last year?", ["gfbday"], "dialogue", "en"),
    ("What's my cholesterol looking like now?", ["ldl2"], "update", "en"),
    ("I'm grabbing tacos after practice, anything I should watch out for?", ["cilantro", "diet"], "dialogue", "en"),
    ("When do we practice during the season?", ["practice"], "direct", "en"),
    ("Which team am I coaching this year?", ["coach2"], "update", "en"),
    ("When does the band rehearse now?", ["rehearsal2"], "update", "en"),
    ("What car am I driving?", ["car2"], "update", "en"),
    ("Help me plan a date night that works with Keisha's schedule.", ["gfnights2"], "dialogue", "en"),
    ("Picking up dessert for Keisha on the way home, anything to avoid?", ["gfpeanut"], "dialogue", "en"),
    ("I need to start drafting my speech for my brother's wedding.", ["speech", "bestman", "weddingdate"], "dialogue", "en"),
    ("What color suit am I getting for the wedding?", ["suit"], "direct", "en"),
    ("Where's Andre's wedding happening?", ["wedding"], "direct", "en"),
    ("How much rent do we pay?", ["rent"], "direct", "en"),
    ("I want to make a smoothie for breakfast, what should I put in it?", ["lactose"], "dialogue", "en"),
    ("My back is still sore, I think I should stretch before practice.", ["back"], "dialogue", "en"),
    ("What's my capstone topic?", ["capstone"], "direct", "en"),
    ("What nights are my master's classes?", ["classes"], "direct", "en"),
    ("How did my JV team do that first season?", ["record"], "direct", "en"),
    ("Where does my mom live now? I want to send her flowers.", ["mom"], "update", "en"),
    ("我們樂團叫什麼名字？", ["band"], "cross-lingual", "zh"),
    ("我哥哥的婚禮是哪一天？", ["weddingdate"], "cross-lingual", "zh"),
    ("What did the mechanic say about fixing my old Civic?", ["quote"], "direct", "en"),
    ("I'm thinking of signing up for a race, what was I aiming for?", ["5k"], "direct", "en"),
]),
dict(id="en-03", user="Elena", memories="""
2023-04-01 User is Elena Rossi, lives in Hackney, London #home
2023-04-01 Elena is an ICU nurse at an NHS hospital #job
2023-04-08 Elena works three 12-hour night shifts a week #shifts
2023-04-15 Elena's boyfriend Sam is a sound engineer #bf
2023-04-22 Elena has a tabby cat named Pepe #cat
2023-04-29 Elena gets migraines, triggered by red wine and lack of sleep #migraine
2023-05-06 Elena cycles to work, about 25 minutes #cycle
2023-05-13 Elena's parents live in Bologna; sister Giulia lives in Milan #family
2023-05-20 Elena is learning Spanish on Tuesday evenings #spanish
2023-05-27 Elena goes open-water swimming at the Hampstead ponds #swim
2023-06-10 Elena and Sam are thinking about moving to Barcelona #bcn
2023-06-24 Elena's rent in Hackney is 1,850 pounds a month #rent1
2023-07-08 Elena takes sumatriptan for migraines #med
2023-07-22 Elena hates coriander and very spicy food #food
2023-08-05 Elena's Spanish level is roughly A2 #a2
2023-08-19 Pepe had a tooth removed at the vet #pepeteeth
2023-09-02 Elena's landlord is selling the flat #landlord
2023-09-16 Elena and Sam are flat hunting in Walthamstow #flathunt
2023-10-07 Signed for a flat in Walthamstow, 1,700 a month #rent2
2023-10-21 Moved to Walthamstow; commute by bike is now 40 minutes #commute2
2023-11-04 Giulia is pregnant, due in April #giulia
2023-11-18 Elena switched to the Overground for her commute in winter #commute3
2023-12-02 Christmas in Bologna with her parents #xmas
2024-01-13 Elena's Spanish is now around B1 #b1
2024-01-27 Barcelona move postponed by a year because of Sam's contract #bcn2
2024-02-10 Elena applied for a band 6 senior nurse role #band6
2024-02-24 Elena got the band 6 role #band6ok
2024-03-09 Elena now works two nights and two days a week #shifts2
2024-03-23 Pepe is on a diet, vet says he is overweight #pepediet
2024-04-13 Giulia had a baby girl named Chiara #chiara
2024-04-27 Elena is Chiara's godmother #godmother
2024-05-11 Elena flew to Milan for the christening #christening
2024-05-25 Elena started seeing a neurologist about the migraines #neuro
2024-06-08 Neurologist prescribed a daily preventive, propranolol #propranolol
2024-06-22 Elena did a 3 km open-water race in the Serpentine #race
2024-07-06 Sam got a job offer from a studio in Barcelona #samjob
2024-07-20 They decided to move to Barcelona next spring #bcn3
2024-08-03 Elena is studying for the Spanish nursing registration #register
2024-08-17 Elena needs a B2 Spanish certificate for nursing in Spain #b2need
2024-09-07 Elena booked the DELE B2 exam for November 16 #dele
2024-09-21 Migraines are down to about two a month #migraine2
2024-10-05 Elena and Sam are looking at flats in Gràcia #gracia
2024-11-16 Elena sat the DELE B2 exam
2024-12-14 Elena passed DELE B2 #delepass
2025-01-11 Elena gave notice at the hospital, last day is March 28 #notice
2025-01-25 Pepe needs a pet passport and rabies jab to move #pepepassport
2025-02-08 Move date to Barcelona is April 5 #movedate
""", questions=[
    ("Sam wants to book a wine bar for Friday, should I be careful?", ["migraine"], "dialogue", "en"),
    ("What migraine medication am I on now?", ["propranolol"], "update", "en"),
    ("How's my Spanish these days?", ["delepass"], "update", "en"),
    ("When's my last day at the hospital?", ["notice"], "direct", "en"),
    ("When exactly are we moving to Spain?", ["movedate"], "update", "en"),
    ("What do I need to sort out for the cat before we move?", ["pepepassport"], "dialogue", "en"),
    ("Which neighbourhood are we looking at in Barcelona?", ["gracia"], "direct", "en"),
    ("What's my rent right now?", ["rent2"], "update", "en"),
    ("How am I getting to work at the moment?", ["commute3"], "update", "en"),
    ("What's my niece's name? I want to get her something.", ["chiara"], "direct", "en"),
    ("I'm cooking for Sam's friends tonight, what should I avoid?", ["food"], "dialogue", "en"),
    ("What's my shift pattern now?", ["shifts2"], "update", "en"),
    ("Where do I go swimming outdoors?", ["swim"], "direct", "en"),
    ("What was that open-water race I did last summer?", ["race"], "direct", "en"),
    ("Pepe keeps begging for food, should I give him more?", ["pepediet"], "dialogue", "en"),
    ("How often am I getting migraines now?", ["migraine2"], "update", "en"),
    ("Why did we push back the Barcelona move the first time?", ["bcn2"], "direct", "en"),
    ("Why are we moving to Barcelona now?", ["samjob", "bcn3"], "direct", "en"),
    ("我姊妹住在哪個城市？", ["family"], "cross-lingual", "zh"),
    ("我在西班牙當護士需要什麼語言證書？", ["b2need"], "cross-lingual", "zh"),
    ("Thinking about what to bring to my parents when I visit Italy.", ["family"], "dialogue", "en"),
    ("What role did I get promoted into?", ["band6ok"], "direct", "en"),
]),
dict(id="en-04", user="Tom", memories="""
2023-03-04 User is Tom Becker, 71, retired machinist in Dayton, Ohio #home
2023-03-04 Tom's wife is Linda; they've been married 46 years #wife
2023-03-11 Tom has atrial fibrillation and takes Eliquis, a blood thinner #afib
2023-03-18 Tom has a woodworking shop in his garage #shop
2023-03-25 Grandkids Ethan (8) and Lily (6) live in Columbus #grandkids
2023-04-01 Tom's son Mike is an HVAC technician in Columbus #son
2023-04-08 Tom wears hearing aids in both ears #hearing
2023-04-15 Tom sings bass in the church choir, rehearsals Wednesday night #choir
2023-04-22 Tom drives a 2015 Ford F-150 #truck
2023-05-06 Tom likes walleye fishing on Lake Erie #fishing
2023-05-20 Tom served in the Navy in the 1970s #navy
2023-06-03 Tom's left knee is bad; surgeon recommends a replacement #knee
2023-06-17 Tom is building a cedar birdhouse for Lily #birdhouse
2023-07-01 Linda has a gluten sensitivity #lindagluten
2023-07-15 Tom is not allowed grapefruit with his medication #grapefruit
2023-08-05 Tom and Linda take the grandkids to the county fair every August #fair
2023-08-19 Tom's table saw is a SawStop contractor saw #saw
2023-09-02 Tom gave Lily the birdhouse for her birthday
2023-09-16 Knee replacement scheduled for January 9 #kneedate
2023-10-07 Tom is building a rocking chair for Linda #chair
2023-10-21 Tom's cardiologist is Dr. Patel at Miami Valley Hospital #cardio
2023-11-04 Tom has to stop Eliquis two days before surgery #stop
2023-11-18 Tom likes his coffee black, two cups a morning #coffee
2023-12-02 Christmas at Mike's house in Columbus #xmas
2024-01-09 Tom had his left knee replaced #kneedone
2024-01-23 Physical therapy twice a week for 12 weeks #pt
2024-02-06 Tom is walking with a cane #cane
2024-03-05 Tom can't kneel yet, so the shop is on hold #shophold
2024-04-02 Tom finished PT and is walking without a cane #ptdone
2024-04-16 Tom's back in the shop finishing the rocking chair
2024-05-07 Tom got new hearing aids that connect to his phone #hearing2
2024-05-21 Tom and Linda's anniversary is June 12 #anniv
2024-06-12 Tom gave Linda the finished rocking chair for their anniversary #chairdone
2024-07-02 Tom caught a 9-pound walleye on Lake Erie #walleye
2024-07-16 Ethan wants to learn woodworking #ethanwood
2024-08-06 Tom is making a small workbench for Ethan #bench
2024-08-20 Tom's cardiologist lowered his Eliquis dose #dose
2024-09-03 Tom's doctor wants him to walk 30 minutes daily #walk
2024-10-01 Tom sold the F-150 and bought a Toyota Tacoma #truck2
2024-10-15 The choir moved rehearsals to Thursday night #choir2
2024-11-05 Tom and Linda are thinking about a cruise to Alaska next summer #cruise
2024-11-19 Linda's sister Carol lives in Fort Myers, Florida #carol
2024-12-03 Tom's right knee is starting to ache too #rightknee
2025-01-07 They booked the Alaska cruise for July 14 from Seattle #cruisebook
2025-01-21 Tom is teaching Ethan to use a hand plane #plane
2025-02-04 Lily wants a dollhouse for her birthday #dollhouse
""", questions=[
    ("I'm heading to the shop, what was I making for Ethan?", ["bench"], "direct", "en"),
    ("Linda wants to try that new bakery downtown, what should she look out for?", ["lindagluten"], "dialogue", "en"),
    ("Can I have grapefruit juice with breakfast?", ["grapefruit", "afib"], "dialogue", "en"),
    ("When is choir practice now?", ["choir2"], "update", "en"),
    ("What truck do I drive these days?", ["truck2"], "update", "en"),
    ("Who's my heart doctor?", ["cardio"], "direct", "en"),
    ("What did I give Linda for our anniversary?", ["chairdone"], "direct", "en"),
    ("Want to build something nice for the craft fair, what wood do I like best?", ["walnut"], "dialogue", "en"),
    ("Lily's birthday is coming, any ideas for a project I could build?", ["dollhouse"], "dialogue", "en"),
    ("What's the biggest fish I've caught?", ["walleye"], "direct", "en"),
    ("When did I get my knee done?", ["kneedone"], "direct", "en"),
    ("My other knee has been acting up, is that new?", ["rightknee"], "dialogue", "en"),
    ("When does our cruise leave and from where?", ["cruisebook"], "direct", "en"),
    ("Am I still on the same dose of my blood thinner?", ["dose"], "update", "en"),
    ("How long does my doctor want me walking each day?", ["walk"], "direct", "en"),
    ("What kind of table saw do I have?", ["saw"], "direct", "en"),
    ("We're thinking of visiting Linda's sister this winter, where does she live?", ["carol"], "direct", "en"),
    ("The grandkids are visiting in August, what do we usually do?", ["fair", "grandkids"], "dialogue", "en"),
    ("Do I still need the cane?", ["ptdone"], "update", "en"),
    ("我孫子幾歲？住在哪裡？", ["grandkids"], "cross-lingual", "zh"),
    ("我太太對什麼食物敏感？", ["lindagluten"], "cross-lingual", "zh"),
    ("What hearing aids do I have now?", ["hearing2"], "update", "en"),
    ("Which branch of the military was I in?", ["navy"], "direct", "en"),
]),
dict(id="en-05", user="Aisha", memories="""
2023-09-02 User is Aisha Karimi, a PhD candidate in environmental engineering at U of T #home
2023-09-02 Aisha's thesis is on microplastics in Lake Ontario sediments #thesis
2023-09-09 Aisha's supervisor is Professor Lindqvist #sup
2023-09-16 Aisha has celiac disease and must eat strictly gluten-free #celiac
2023-09-23 Aisha lives with two roommates in the Annex #roommates
2023-09-30 Aisha is a TA for second-year fluid mechanics #ta
2023-10-07 TA tutorials are Tuesday and Thursday afternoons #tatime
2023-10-14 Aisha's fiancé Omar lives in Montreal #fiance
2023-10-21 Aisha takes the train to Montreal about once a month #train
2023-11-04 Aisha gets seasonal low mood and uses a light therapy lamp #sad
2023-11-18 Aisha's sister Leila is getting married in June #leila
2023-12-02 Aisha drinks oat flat whites #coffee
2023-12-16 Aisha bikes to campus except in heavy snow #bike
2024-01-13 Aisha submitted a paper to Water Research #paper
2024-01-27 Aisha presented at a departmental seminar
2024-02-10 Aisha's stipend is about 28,000 a year #stipend
2024-02-24 Aisha got a travel grant for a conference in Vienna #grant
2024-03-09 The Vienna conference is EGU, in mid April #egu
2024-03-23 Aisha is worried about finding gluten-free food in Vienna #viennafood
2024-04-20 Aisha presented a poster at EGU in Vienna #egudone
2024-05-04 Water Research asked for major revisions #revisions
2024-05-18 Aisha is a bridesmaid at Leila's wedding #bridesmaid
2024-06-15 Leila's wedding was in Mississauga #leilawed
2024-07-06 Aisha and Omar set their wedding date: August 2025 #wedding1
2024-07-20 Aisha resubmitted the paper #resubmit
2024-08-03 One roommate moved out; new roommate is Priyanka, a med student #roommate2
2024-08-17 The paper was accepted in Water Research #accepted
2024-09-07 Aisha plans to defend her thesis in spring 2025 #defense1
2024-09-21 Aisha started applying for postdocs and industry jobs #jobs
2024-10-05 Aisha interviewed with an environmental consultancy in Montreal #interview
2024-10-19 Aisha is leaning toward industry rather than a postdoc #industry
2024-11-02 Aisha got an offer from the Montreal consultancy, starting after her defense #offer
2024-11-16 Aisha accepted the consultancy offer #accept
2024-11-30 Wedding moved up to June 2025 so it is before the new job starts #wedding2
2024-12-14 Aisha's defense is scheduled for April 22 #defense2
2025-01-11 External examiner is Dr. Moreau from McGill #examiner
2025-01-25 Aisha is learning French for the Montreal job #french
2025-02-08 Aisha is looking at apartments in Plateau Mont-Royal with Omar #plateau
""", questions=[
    ("Going out for pizza with the lab tonight, what should I keep in mind?", ["celiac"], "dialogue", "en"),
    ("When is my thesis defense?", ["defense2"], "update", "en"),
    ("Who's my external examiner?", ["examiner"], "direct", "en"),
    ("When's our wedding now?", ["wedding2"], "update", "en"),
    ("Where's my new job?", ["offer", "accept"], "direct", "en"),
    ("What happened with the Water Research paper?", ["accepted"], "update", "en"),
    ("It's getting dark by 4:30 and I'm feeling flat again.", ["sad"], "dialogue", "en"),
    ("What days do I run my tutorials?", ["tatime"], "direct", "en"),
    ("What course do I TA?", ["ta"], "direct", "en"),
    ("Who are my roommates right now?", ["roommate2"], "update", "en"),
    ("Heading to a coffee shop to write, order my usual.", ["coffee"], "dialogue", "en"),
    ("Where did I present my poster last spring?", ["egudone"], "direct", "en"),
    ("Is my job offer an industry role or a postdoc?", ["industry", "accept"], "direct", "en"),
    ("I need to brush up on a language before I start working, which one?", ["french"], "dialogue", "en"),
    ("Where are Omar and I looking at apartments?", ["plateau"], "direct", "en"),
    ("What is my thesis about?", ["thesis"], "direct", "en"),
    ("How much is my stipend?", ["stipend"], "direct", "en"),
    ("我的指導教授是誰？", ["sup"], "cross-lingual", "zh"),
    ("我的婚禮現在改到什麼時候？", ["wedding2"], "cross-lingual", "zh"),
    ("I'm visiting Omar next weekend, how do I usually get there?", ["train", "fiance"], "dialogue", "en"),
    ("Where was Leila's wedding?", ["leilawed"], "direct", "en"),
    ("Which night is volleyball these days?", ["volley2"], "update", "en"),
    ("We still need someone to cook for the wedding, what should I ask caterers?", ["caterer", "celiac"], "dialogue", "en"),
]),
dict(id="en-06", user="Jake", memories="""
2023-07-01 User is Jake Morales, lives in East Austin #home
2023-07-01 Jake co-founded a payroll startup called Paystack Lite with Ben #startup
2023-07-08 Jake is the CEO; Ben is the CTO #roles
2023-07-15 Jake runs five days a week along Lady Bird Lake #run
2023-07-22 Jake's girlfriend Chloe is a pediatric dentist #gf
2023-07-29 Jake is allergic to cats #cats
2023-08-05 Jake has trouble sleeping and stops caffeine after noon #sleep
2023-08-12 Jake's parents live in San Antonio #parents
2023-08-19 Jake's brother Luis is in the Air Force, stationed in Germany #luis
2023-09-02 The startup has 6 employees #size1
2023-09-16 Jake is raising a seed round, target 3 million #seed1
2023-09-30 Jake drives a 2017 Toyota Tacoma #truck
2023-10-14 Jake is training for the Austin Marathon in February #marathon
2023-10-28 Jake prefers morning meetings and blocks afternoons for deep work #meetings
2023-11-11 Jake eats mostly plant-based but eats fish #diet
2023-11-25 Seed round closed at 2.4 million, led by Crestline Ventures #seed2
2023-12-09 Jake and Chloe went to Big Bend for a long weekend #bigbend
2024-01-06 Jake's resting heart rate is 52 #hr
2024-02-18 Jake ran the Austin Marathon in 3:41 #marathondone
2024-03-02 The startup hired a head of sales named Priscilla #sales
2024-03-16 The team grew to 11 people #size2
2024-03-30 Jake proposed to Chloe at Mount Bonnell #engaged
2024-04-13 Wedding planned for spring 2025 #wedding1
2024-04-27 Jake and Chloe are house hunting in Mueller #househunt
2024-05-11 Jake started seeing a therapist for stress #therapy
2024-05-25 Jake's rent in East Austin is 2,400 #rent
2024-06-08 Bought a house in Mueller, closing July 19 #house
2024-06-22 Chloe's cat Juniper will move in with them #juniper
2024-07-06 Jake is trying allergy shots for cats #shots
2024-07-20 Moved into the Mueller house #moved
2024-08-03 Jake and Chloe adopted a rescue dog named Rosie #rosie
2024-08-17 Rosie is a three-year-old pit mix and scared of thunder #rosiethunder
2024-09-07 Startup passed 400 paying customers #customers
2024-09-21 Ben wants to raise a Series A next year #seriesa
2024-10-05 Jake pulled his hamstring and stopped running for a month #hamstring
2024-10-19 Jake took up swimming while the hamstring heals #swim
2024-11-02 Wedding date set: April 26, 2025, in Wimberley #weddingdate
2024-11-16 Wedding guest list is about 120 people #guests
2024-11-30 Luis is coming home from Germany for the wedding #luishome
2024-12-14 Series A target is 12 million #seriesa2
2025-01-11 Jake is back to running three days a week #runback
2025-01-25 The team is now 18 people #size3
2025-02-08 Honeymoon planned in Portugal for two weeks in May #honeymoon
""", questions=[
    ("It's 3pm and I'm dragging, should I grab an espresso?", ["sleep"], "dialogue", "en"),
    ("How big is the team now?", ["size3"], "update", "en"),
    ("When and where is the wedding?", ["weddingdate"], "update", "en"),
    ("Who led our seed round and how much did we raise?", ["seed2"], "direct", "en"),
    ("What are we aiming to raise in the Series A?", ["seriesa2"], "update", "en"),
    ("We're having people over — Chloe's cat lives with us now, I'm sneezing a lot.", ["juniper", "shots", "cats"], "dialogue", "en"),
    ("Storm coming tonight, how do I help the dog?", ["rosiethunder"], "dialogue", "en"),
    ("Am I running these days?", ["runback"], "update", "en"),
    ("What was my marathon time?", ["marathondone"], "direct", "en"),
    ("Book me a call with the investor, when do I like meetings?", ["meetings"], "dialogue", "en"),
    ("Choosing a restaurant for the team dinner, what do I eat?", ["diet"], "dialogue", "en"),
    ("Where did I propose to Chloe?", ["engaged"], "direct", "en"),
    ("Where are we going on our honeymoon?", ["honeymoon"], "direct", "en"),
    ("Who's our head of sales?", ["sales"], "direct", "en"),
    ("How many customers do we have?", ["customers"], "direct", "en"),
    ("Is my brother coming to the wedding?", ["luishome"], "direct", "en"),
    ("How many guests are we expecting?", ["guests"], "direct", "en"),
    ("What's Chloe's job again?", ["gf"], "direct", "en"),
    ("我們的狗叫什麼名字？", ["rosie"], "cross-lingual", "zh"),
    ("我的未婚妻是做什麼工作的？", ["gf"], "cross-lingual", "zh"),
    ("Where do we live now?", ["moved", "house"], "update", "en"),
    ("Where's our office these days? I'm meeting a candidate there.", ["office2"], "update", "en"),
    ("Can I move my therapy session to Friday? When is it usually?", ["therapist"], "direct", "en"),
]),
dict(id="en-07", user="Hannah", memories="""
2023-02-05 User is Hannah O'Connor, lives in Brunswick, Melbourne #home
2023-02-05 Hannah is a freelance wedding photographer #job
2023-02-12 Hannah has two cats, Miso and Tofu #cats
2023-02-19 Hannah's partner Liam is a primary school teacher #partner
2023-02-26 Hannah shoots with a Sony A7 III #camera1
2023-03-05 Hannah has a bad lower back from carrying gear #back
2023-03-12 Hannah is vegetarian #veg
2023-03-19 Hannah's mum lives in Perth #mum
2023-03-26 Hannah's accountant is Greg at Northside Tax #accountant
2023-04-09 Hannah charges 3,800 for a full wedding day #rate1
2023-04-23 Hannah is saving for a house deposit #deposit
2023-05-07 Hannah started a ceramics class on Monday nights #ceramics
2023-05-21 Miso has a sensitive stomach and eats a special diet #miso
2023-06-04 Winter is Hannah's quiet season for weddings #quiet
2023-06-18 Hannah registered for GST #gst
2023-07-02 Hannah and Liam are planning a trip to Japan in October #japan
2023-07-16 Hannah wants to see the autumn leaves in Kyoto #kyoto
2023-08-13 Hannah hurt her back at a wedding and saw a physio #physio
2023-08-27 Physio recommended a harness system instead of a shoulder strap #harness
2023-10-15 Hannah and Liam spent two weeks in Japan #japandone
2023-11-12 Hannah is booked for 24 weddings next season #bookings
2024-01-14 Hannah upgraded to a Sony A7 IV #camera2
2024-01-28 Hannah raised her full-day rate to 4,300 #rate2
2024-02-11 Tofu was diagnosed with asthma #tofu
2024-02-25 Tofu uses an inhaler with a spacer twice a day #inhaler
2024-03-10 Hannah hired a second shooter, Amira #amira
2024-04-07 Hannah started eating fish again, now pescatarian #pesc
2024-05-05 Hannah and Liam found a house in Coburg #coburg
2024-05-19 Offer accepted on the Coburg house, settlement in July #settle
2024-06-16 Hannah's mum is moving from Perth to Melbourne #mummove
2024-07-14 Moved into the Coburg house #moved
2024-07-28 Hannah set up a studio in the spare room #studio
2024-08-11 Hannah's ceramics class moved to Wednesday nights #ceramics2
2024-09-08 Liam proposed on a beach walk in Lorne #engaged
2024-09-22 Hannah and Liam want a small wedding, about 40 guests #small
2024-10-20 Their wedding is set for March 15 in the Yarra Valley #weddingdate
2024-11-03 Hannah asked Amira to photograph her wedding #amirawed
2024-12-01 Hannah's mum moved into a unit in Brunswick #mumnear
2025-01-12 Hannah is not taking bookings in March so she can prepare #nobook
2025-02-09 Miso is now on a new hydrolysed protein diet #miso2
""", questions=[
    ("A couple asked for my rates, what am I charging for a full day now?", ["rate2"], "update", "en"),
    ("I've got a big wedding on Saturday and my back's already sore.", ["back", "harness"], "dialogue", "en"),
    ("Who's shooting our own wedding?", ["amirawed"], "direct", "en"),
    ("When and where is our wedding?", ["weddingdate"], "direct", "en"),
    ("Booking dinner for Liam's birthday, what do I eat these days?", ["pesc"], "update", "en"),
    ("Tofu is wheezing a bit tonight, remind me how we treat it?", ["inhaler"], "dialogue", "en"),
    ("What camera am I using now?", ["camera2"], "update", "en"),
    ("Which night is my pottery class?", ["ceramics2"], "update", "en"),
    ("Where does my mum live now? I want to pop by.", ["mumnear"], "update", "en"),
    ("A couple wants me for March 22, can I take it?", ["nobook"], "dialogue", "en"),
    ("I need to sort my BAS, who do I send it to?", ["accountant", "gst"], "dialogue", "en"),
    ("Buying cat food today, what does Miso eat?", ["miso2"], "update", "en"),
    ("Where did Liam propose?", ["engaged"], "direct", "en"),
    ("How many weddings did I have booked for that season?", ["bookings"], "direct", "en"),
    ("Who's my second shooter?", ["amira"], "direct", "en"),
    ("How many guests are we planning for?", ["small"], "direct", "en"),
    ("What suburb did we buy in?", ["coburg"], "direct", "en"),
    ("Where do I do my editing now?", ["studio"], "direct", "en"),
    ("A couple asked when they'd get their photos, what do I usually promise?", ["delivery"], "dialogue", "en"),
    ("Where are we going after the wedding?", ["honeymoon"], "direct", "en"),
    ("我的伴侶是做什麼的？", ["partner"], "cross-lingual", "zh"),
    ("我們上次去日本是什麼時候？", ["japandone"], "cross-lingual", "zh"),
    ("Liam wants to do Japan again, what did I want to see there last time?", ["kyoto"], "dialogue", "en"),
]),
dict(id="en-08", user="Diego", memories="""
2023-06-03 User is Diego Alvarez, lives in Denver's Highland neighborhood #home
2023-06-03 Diego is a backend developer working remotely for a San Francisco company #job
2023-06-10 Diego's wife Sofia is a pharmacist #wife
2023-06-17 Son Mateo is 3 and goes to daycare three days a week #mateo
2023-06-24 Diego climbs at the Movement gym twice a week #climb
2023-07-01 Diego drives a 2016 Subaru Outback #car
2023-07-08 Diego's family speaks Spanish at home #spanish
2023-07-22 Diego has an Epic ski pass #epic
2023-08-05 Diego's team is on Pacific time; standup is at 10am Denver time #standup
2023-08-19 Mateo is allergic to tree nuts #nuts
2023-09-02 Sofia's mom Rosa lives in Albuquerque #rosa
2023-09-16 Diego injured a finger pulley on a crimpy route #finger
2023-09-30 Diego is off climbing for six weeks for the finger #fingerrest
2023-10-14 Sofia is pregnant, due in April #pregnant
2023-10-28 Diego and Sofia are renovating the basement into a guest room #basement
2023-11-11 Diego prefers dark mode and a split keyboard #desk
2023-11-25 Rosa will move in to help after the baby arrives #rosamove
2023-12-09 Basement renovation budget is 45,000 #budget
2024-01-13 Diego is back to climbing, easier grades only #climbback
2024-01-27 Basement renovation finished #basementdone
2024-02-10 Diego switched from the Epic pass to an Ikon pass #ikon
2024-03-09 Diego started paternity leave planning, 12 weeks #leave
2024-04-06 Baby girl Lucia was born #lucia
2024-04-20 Rosa moved into the basement guest room #rosain
2024-05-04 Diego is on paternity leave until early July #leave2
2024-06-01 Lucia has reflux and sleeps badly #reflux
2024-07-06 Diego is back at work #back
2024-08-03 Mateo starts pre-K at a Montessori school #prek
2024-08-17 Diego got promoted to staff engineer #staff
2024-09-14 Standup moved to 9am Denver time #standup2
2024-10-12 Diego and Sofia want a bigger car for two car seats #bigcar
2024-10-26 Traded the Outback for a Kia Telluride #car2
2024-11-09 Rosa moved back to Albuquerque #rosaback
2024-12-07 Lucia started daycare two days a week #luciadaycare
2025-01-11 Diego wants to climb outdoors at Eldorado Canyon this spring #eldo
2025-01-25 Mateo's tree nut allergy test still positive #nuts2
2025-02-08 Diego is leading a database migration at work #migration
""", questions=[
    ("Packing snacks for Mateo's field trip, anything I need to avoid?", ["nuts2"], "dialogue", "en"),
    ("What time is standup now?", ["standup2"], "update", "en"),
    ("Which ski pass do I have this year?", ["ikon"], "update", "en"),
    ("What car are we driving?", ["car2"], "update", "en"),
    ("Is my mother-in-law still living with us?", ["rosaback"], "update", "en"),
    ("What's my title at work now?", ["staff"], "direct", "en"),
    ("When was Lucia born?", ["lucia"], "direct", "en"),
    ("Thinking about hitting a hard project at the gym this week.", ["finger", "climbback"], "dialogue", "en"),
    ("Lucia was up all night again, any ideas?", ["reflux"], "dialogue", "en"),
    ("What school does Mateo go to?", ["prek"], "direct", "en"),
    ("How many days is Lucia at daycare?", ["luciadaycare"], "direct", "en"),
    ("I want to plan an outdoor climbing day, where was I thinking?", ["eldo"], "direct", "en"),
    ("What's my big project at work right now?", ["migration"], "direct", "en"),
    ("How much did we budget for the basement?", ["budget"], "direct", "en"),
    ("Setting up a new laptop, what do I like in my setup?", ["desk"], "dialogue", "en"),
    ("My wife's pharmacy shift ran late, can you suggest a quick dinner for the kids?", ["wife", "nuts2"], "dialogue", "en"),
    ("Where does Rosa live?", ["rosaback"], "direct", "en"),
    ("我們家在家裡講什麼語言？", ["spanish"], "cross-lingual", "zh"),
    ("我女兒叫什麼名字？", ["lucia"], "cross-lingual", "zh"),
    ("How long was my paternity leave?", ["leave", "leave2"], "direct", "en"),
    ("Where's my climbing gym?", ["climb"], "direct", "en"),
    ("Want to take Sofia out for a date night, where does she love to eat?", ["sofiafood"], "dialogue", "en"),
    ("When is the database cutover?", ["cutover"], "direct", "en"),
]),
]

# distractor memories: same people, other details (kept apart so the core lines stay readable)
EXTRA = {
"en-01": """
2023-05-14 Priya's favorite cuisine is South Indian
2023-06-11 Arjun plays cricket in a weekend league
2023-07-01 Priya plans her work in Notion
2023-08-19 Priya's bus commute to the office is 25 minutes #commute1
2023-09-30 Priya works from home on Mondays and Fridays #wfh
2023-10-28 Priya's company is headquartered in Bellevue
2023-12-23 Priya bought a lehenga for Maya in Pune
2024-02-25 Priya's sister Anjali lives in New Jersey #anjali
2024-05-19 Priya is reading a book about negotiation
2024-07-14 Arjun's summer break started; he's home with the kids
2024-08-25 Priya's commute from Shoreline is now 40 minutes by car #commute2
2024-10-06 Maya joined the school chess club #chess
2024-11-03 The tomatoes in Priya's garden did well this year
2024-12-15 Anjali is visiting for Christmas #anjalivisit
2025-01-26 Priya started strength training twice a week
""",
"en-02": """
2023-08-21 Marcus grew up in Detroit
2023-08-28 Marcus's classroom is room 214
2023-09-11 Marcus teaches AP Chemistry and two sections of general chemistry
2023-09-25 Marcus drinks black coffee, one cup a day
2023-10-09 Keisha works at a clinic in Wicker Park
2023-10-23 Marcus is a lifelong Bulls fan
2023-11-06 Marcus grades labs on Sunday evenings
2023-11-27 Marcus started lifting at the park district gym
2023-12-10 The Low Ends played a holiday party in Bucktown
2024-01-21 Marcus's principal is Ms. Alvarado
2024-02-04 Keisha is allergic to peanuts #gfpeanut
2024-03-03 Marcus is saving for a condo down payment
2024-04-14 One of Marcus's students placed second at the regional science fair
2024-05-26 The brewery gig went well and the band was asked back
2024-06-23 Marcus and Keisha took a pottery class on a date
2024-07-21 Summer school is credit-recovery chemistry
2024-09-01 Marcus uses the second bedroom as an office
2024-09-29 Marcus sees a physical therapist on Milwaukee Ave for his back #backpt
2024-10-13 Keisha's mom is visiting for two weeks in November
2024-11-10 Marcus bought a used bass amp
2024-12-08 The varsity team is 6-2 so far
2025-01-05 A colleague gave Marcus tips on public speaking
2025-01-19 Keisha now works three night shifts a week, Thursday to Saturday #gfnights2
2025-02-02 Marcus booked a hotel in Savannah for April 17 to 21 #hotel
""",
"en-03": """
2023-04-02 Elena works at the Royal London Hospital in Whitechapel
2023-04-16 Sam works mostly evenings at a studio in Camden
2023-06-03 Elena's favourite dish is her mum's tortellini in brodo
2023-06-17 Elena reads crime novels on her days off
2023-07-01 Elena keeps a migraine diary
2023-07-29 Elena drinks only decaf after 2pm
2023-08-26 Sam's birthday is September 12 #sambday
2023-09-09 Elena bought a wetsuit for winter swimming
2023-10-14 The Walthamstow flat has a small garden
2023-11-25 Elena joined a Spanish conversation group on Saturdays
2023-12-16 Elena flew to Bologna for Christmas
2024-02-03 Elena's ward manager is called Fiona
2024-03-16 Sam's band released an EP
2024-05-04 Elena's sister Giulia is an architect
2024-07-27 Elena worries Sam's Barcelona contract is only for one year
2024-08-31 Elena started an online course in Spanish medical vocabulary
2024-10-19 Elena and Sam flew to Barcelona to view flats
2024-11-30 Pepe turned nine
2025-01-04 Elena submitted her Spanish nursing registration application
2025-02-15 Elena is selling her bike before the move
""",
"en-04": """
2023-03-05 Tom gets up at 5:30 every morning
2023-03-19 Tom built his own dust collector for the shop
2023-04-02 Tom's daughter-in-law is Jen
2023-04-29 Tom also takes a statin for cholesterol
2023-05-13 Tom's fishing buddy is his old coworker Gary
2023-06-10 Tom volunteers at the food pantry on Tuesdays
2023-07-08 Linda grows tomatoes and peppers in raised beds
2023-07-29 Tom watches the Reds on TV most evenings
2023-08-26 Tom has a 16-foot Lund fishing boat
2023-09-23 Tom's primary care doctor is Dr. Hughes
2023-10-28 Tom's favorite wood to work with is black walnut #walnut
2023-11-25 Thanksgiving was at Tom and Linda's house
2023-12-16 Tom bought Ethan a kids' tool set for Christmas
2024-02-20 Linda drives Tom to physical therapy
2024-03-19 Tom's knee surgeon is Dr. Nguyen
2024-05-28 Tom's new hearing aids are rechargeable
2024-06-25 Gary and Tom went fishing on Lake Erie
2024-08-27 Tom sold a walnut side table at the church craft fair
2024-09-17 Tom's blood pressure was 128 over 78
2024-11-26 Tom built shelves for Mike's garage
2025-01-28 Tom signed up for a senior fitness class at the YMCA #ymca
""",
"en-05": """
2023-09-03 Aisha is originally from Calgary
2023-09-10 Aisha's lab is in the Galbraith Building
2023-09-17 Aisha's parents are both pharmacists in Calgary #parents
2023-09-24 Aisha plays in a Wednesday night volleyball league #volley1
2023-10-01 Aisha manages references in Zotero
2023-10-08 Aisha's sediment samples come from near Humber Bay
2023-10-28 Omar is a software developer at a Montreal game studio #omarjob
2023-11-11 Aisha's favourite gluten-free bakery is on College Street
2023-11-25 Aisha's lab mate Kenji helps her with the spectrometer
2023-12-09 Aisha flew to Calgary for the holidays
2024-01-06 Aisha's New Year goal is writing 500 words a day
2024-01-20 Professor Lindqvist goes on sabbatical in July
2024-02-03 Aisha's committee meeting went well
2024-03-02 Aisha applied for a small grant to pay for sample analysis
2024-03-16 The analysis grant came through: 5,000
2024-04-06 Aisha found a gluten-free restaurant guide for Vienna
2024-04-27 Aisha spent a day in Salzburg after EGU
2024-05-25 Leila's fiancé is Yusuf
2024-06-08 Aisha gave a toast at Leila's wedding
2024-06-29 Aisha spent a week in Montreal with Omar
2024-07-13 Aisha started drafting her thesis introduction
2024-08-10 Aisha's volleyball league moved to Thursday nights #volley2
2024-08-24 Aisha's light therapy lamp broke; she ordered a new one
2024-09-14 Professor Lindqvist is back from sabbatical
2024-10-12 Aisha finished a draft of chapter 3
2024-10-26 Omar was promoted to lead developer #omarpromo
2024-11-09 Priyanka started her clinical rotations
2024-12-07 Aisha sent the full thesis draft to her committee
2024-12-28 Aisha spent the holidays in Montreal with Omar's family
2025-01-18 The wedding venue is a loft in Old Montreal #venue
2025-02-01 Aisha is looking for a gluten-free wedding caterer #caterer
""",
"en-06": """
2023-07-02 Jake grew up in San Antonio
2023-07-09 The startup works out of a co-working space on East 6th #office1
2023-07-23 Ben lives in Round Rock with his wife and two kids
2023-08-06 Jake drinks cold brew in the morning
2023-08-20 Jake listens to audiobooks on long runs
2023-09-09 Jake's mom makes tamales every Christmas
2023-09-23 Jake's biggest customer is a restaurant group with 30 locations
2023-10-07 Jake works at a standing desk
2023-11-04 Chloe runs too but prefers trails
2023-12-02 The startup had its first profitable month
2023-12-23 Christmas at Jake's parents' in San Antonio
2024-01-20 Jake hired a head of engineering named Mei
2024-02-03 Jake carb-loaded on sweet potatoes before the marathon
2024-04-06 Chloe's parents live in Dallas
2024-05-18 Jake's therapist is Dr. Brooks, Thursdays at 8am #therapist
2024-06-15 The startup moved into an office on East Cesar Chavez #office2
2024-07-27 The Mueller house has three bedrooms and a backyard
2024-08-24 Rosie goes to doggy daycare on Wednesdays #daycare
2024-09-28 Jake sends investor updates on the first Monday of each month
2024-10-26 Jake's physical therapist gave him hamstring bridges
2024-11-23 Chloe's sister Emma will be maid of honor
2024-12-07 Ben will be Jake's best man #bestman
2024-12-28 Jake's cat allergy is noticeably better since the shots #allergybetter
2025-01-18 Jake and Chloe did a cake tasting in Wimberley
2025-02-01 The startup's monthly revenue passed 200,000
""",
"en-07": """
2023-02-06 Hannah edits in Lightroom
2023-02-20 Liam teaches grade 4 at a school in Fitzroy
2023-03-06 Hannah's favourite lens is a 35mm f/1.4
2023-03-20 Hannah's mum is a retired midwife
2023-04-03 Hannah drinks long blacks #coffee
2023-04-17 Hannah delivers galleries within six weeks of a wedding #delivery
2023-05-01 Hannah's website runs on Squarespace
2023-05-15 Hannah's brother Connor lives in Dublin
2023-06-11 Hannah did a workshop on film photography
2023-07-09 Hannah bought a Fuji film camera for personal work
2023-07-23 Tofu likes sleeping on the camera bag
2023-09-10 Hannah shot a rainy wedding in Daylesford
2023-09-24 Hannah's deposit savings passed 60,000
2023-11-26 A couple Hannah photographed sent her a Christmas card
2024-01-07 Hannah's busiest months are November to April
2024-02-04 Hannah's mum visited from Perth for a week
2024-03-24 Amira charges 800 a day as second shooter #amirarate
2024-04-21 Hannah joined a local photographers' collective
2024-06-02 Hannah's ceramics teacher is Ruth
2024-06-30 Liam's school holidays start next week
2024-08-25 Hannah made a set of mugs in ceramics class
2024-09-15 Connor will fly in from Dublin for the wedding
2024-10-06 Hannah's dress is from a small designer in Collingwood
2024-11-17 Hannah and Liam chose a vegetarian-friendly caterer
2024-12-15 Hannah's mum is helping make the wedding invitations
2025-01-05 Hannah's last booked wedding before her own is February 22
2025-01-26 Honeymoon will be a week in Tasmania in late March #honeymoon
2025-02-16 Hannah's engagement ring is a sapphire
""",
"en-08": """
2023-06-04 Diego grew up in El Paso
2023-06-11 Sofia works at a pharmacy in Wheat Ridge
2023-06-18 Diego writes Go and PostgreSQL at work
2023-06-25 Diego's climbing partner is his friend Tariq #tariq
2023-07-09 Diego brews pour-over coffee every morning
2023-07-16 Mateo's daycare is called Little Aspens #daycare1
2023-07-30 Diego's manager is Hana
2023-08-12 Diego plays in a Sunday rec soccer league
2023-08-26 Sofia's favorite restaurant is a Peruvian place on Tennyson #sofiafood
2023-09-09 Diego's parents still live in El Paso
2023-09-23 Diego's company offsite is in San Francisco in October
2023-10-07 Diego flew to San Francisco for the offsite
2023-10-21 Mateo loves dinosaurs and trucks
2023-11-04 The basement contractor is Hernandez Builders
2023-12-02 The family spent Christmas in El Paso
2023-12-16 Diego's home office is in the spare bedroom
2024-01-06 Sofia is on modified duty at the pharmacy
2024-02-24 Mateo is potty trained
2024-03-23 Diego packed the hospital bag
2024-05-18 Rosa cooks dinner most nights
2024-06-15 Lucia's pediatrician is Dr. Greene #pedi
2024-06-29 Diego and Sofia are sleeping in shifts
2024-07-20 Sofia went back to work part-time
2024-08-31 Diego climbed in Clear Creek Canyon with Tariq
2024-10-19 Diego's soccer season ended
2024-11-23 Thanksgiving in Albuquerque at Rosa's
2024-12-21 Diego bought Mateo a balance bike for Christmas
2025-01-18 Diego is easing into hangboard training
2025-02-01 Lucia said her first word, "agua"
2025-02-15 The migration cutover is planned for March 8 #cutover
""",
}
for _p in POOLS:
    _p["extra"] = EXTRA.get(_p["id"], "")

if __name__ == "__main__":
    main(Path(__file__).resolve().parent / "memory_pool_en.json", "memory-pool-en",
         "English per-user memory pools (one short dated memory per session) searched "
         "tenant-wide with the user's recent dialogue or a direct question.", POOLS,
         [t.strip() for t in TRIVIA.strip().splitlines() if t.strip()])

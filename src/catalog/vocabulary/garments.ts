/**
 * The built-in English vocabulary of category labels: garment concepts, each with the labels and
 * words retailers use for it, under the complement group it belongs to. Lookups go through
 * `labelKey` (case, punctuation and plural folding), so each label is written once, in any form;
 * the plural of each label is added automatically.
 *
 * Format: one entry per group; `concept: label, label, …;` with the concept's own name first.
 * Groups match the shipped complement taxonomy (fashion-taxonomy.json).
 */
export const GARMENT_VOCABULARY: Record<string, string> = {
  TOPWEAR: `
    shirt: shirts, button down, button up, oxford shirt, flannel shirt, denim shirt, linen shirt, overshirt, shacket, casual shirt, formal shirt, dress shirt, check shirt;
    t-shirt: tshirts, t shirt, tee, tees, tee shirt, graphic tee, long sleeve tee, ringer tee, muscle tee, henley, henley tshirt, tshirt and tops;
    polo: polo shirt, polo tshirt, polo t shirt, polos, rugby shirt;
    top: tops, cropped top, tank top, tank, camisole top, cami top, tube top, bandeau top, halter top, peplum top, wrap top, bodysuit top, shell top, tunic top, jersey top, knit top, women tops;
    vest top: vest tops, strappy top, singlet, sleeveless top, racerback;
    tunic: tunics;
    sweater: sweaters, jumper, jumpers, pullover, pullovers, knit sweater, knitted sweater, crew neck sweater, v neck sweater, turtleneck, roll neck, polo neck, mock neck, knitwear top, sweater vest, slipover, tank sweater, knitted top;
    cardigan: cardigans, knit cardigan, shrug, shrugs, bolero, wrap cardigan;
    sweatshirt: sweatshirts, sweat shirt, fleece, fleeces, crewneck sweatshirt, hoodie, hoodies, hooded sweatshirt, hooded top, zip hoodie, fleece top, fleece pullover, quarter zip, half zip;
    kurta: kurtas, kurti, kurtis, short kurta, a line kurta, straight kurta, anarkali kurta, pathani kurta;
    bodysuit: bodysuits, baby body, onesie, onesies, vest bodysuit, babygrow;
    romper: rompers;
    jersey: jerseys, football jersey, sports jersey, training top, sports top, gym top, running top, active top, base layer top, rash vest;
    crop top: crop tops, bralette top, corset top, bustier top;
    waistcoat top: gilet top;
    blouse: blouses, saree blouse, readymade blouse, ethnic blouse
  `,
  OUTERWEAR: `
    jacket: jackets, denim jacket, bomber, bomber jacket, biker jacket, leather jacket, puffer, puffer jacket, padded jacket, quilted jacket, down jacket, windcheater, windbreaker, shell jacket, softshell, fleece jacket, varsity jacket, track jacket, utility jacket, trucker jacket, harrington, anorak, outdoor jacket, ski jacket, sports jacket, gilet, gilets, bodywarmer, body warmer, puffer vest, nehru jacket, nehru jackets, bandhgala jacket;
    coat: coats, ski wear, skiwear, overcoat, trench, trench coat, parka, parkas, peacoat, pea coat, duffle coat, wool coat, teddy coat, car coat, topcoat, raincoat, cape, capes, poncho, ponchos;
    rain jacket: rain jackets, rainwear, rain suit, waterproof jacket;
    blazer: blazers, sport coat, suit jacket, tuxedo jacket, dinner jacket, tailored jacket;
    waistcoat: waistcoats, tailored waistcoat, suit vest, outdoor waistcoat;
    suit: suits, two piece suit, three piece suit, tuxedo, tuxedos, bandhgala, bandhgala suit, jodhpuri suit, suit set;
    outdoor overall: snowsuit, snow suit, ski suit, pramsuit, pram suit, all in one outdoor
  `,
  BOTTOMWEAR: `
    jeans: jean, denim, denims, skinny jeans, slim jeans, straight jeans, bootcut jeans, flared jeans, mom jeans, boyfriend jeans, wide leg jeans, cropped jeans, jeans shorts;
    trousers: trouser, pant, pants, slacks, chinos, chino, chino pants, cargo, cargos, cargo pants, cargo trousers, culottes, culotte, palazzo, palazzos, palazzo pants, wide leg trousers, formal trousers, dress pants, tailored trousers, cigarette trousers, paperbag trousers, harem pants, trackpants, track pants, track pant, joggers, jogger, jogging bottoms, sweatpants, sweat pants, trackies, outdoor trousers, ski pants, rain trousers, parachute pants, peg trousers, dhoti pants, jodhpuris, jodhpurs, breeches;
    shorts: short, bermuda, bermudas, chino shorts, denim shorts, cargo shorts, sports shorts, running shorts, cycling shorts, bike shorts, hot pants, sweat shorts;
    skirt: skirts, mini skirt, midi skirt, maxi skirt, pencil skirt, pleated skirt, a line skirt, skort, skorts, denim skirt, wrap skirt, tutu;
    capris: capri, capri pants, three fourths, 3 4ths, three quarter pants, pedal pushers;
    leggings: legging, jeggings, jegging, leggings tights, yoga pants, tights leggings, sports leggings, gym leggings, treggings;
    tights: tight, pantyhose, stockings, stocking, hosiery, leg warmers, leg warmer, footless tights;
    churidar: churidars, churidar pants, patiala, patialas, salwar, salwars, salwar and dupatta, dhoti, dhotis, sharara, shararas, lungi, mundu;
    tracksuit: tracksuits, track suit, jogging suit, sweatsuit, co ord tracksuit;
    bottoms: bottom, bottomwear, bottom wear
  `,
  DRESSES: `
    dress: dresses, maxi dress, midi dress, mini dress, shirt dress, wrap dress, slip dress, bodycon dress, sundress, sun dress, shift dress, sheath dress, skater dress, a line dress, fit and flare dress, tshirt dress, sweater dress, knit dress, party dress, evening dress, cocktail dress, gown, gowns, evening gown, ball gown, frock, frocks, pinafore, pinafore dress, smock dress, tea dress, kaftan dress, underdress;
    jumpsuit: jumpsuits, playsuit, playsuits, jumpsuit playsuit, boiler suit, catsuit, unitard, overall, overalls, dungaree, dungarees, dungaree dress, co ord, co ords, coord set, co ord set, garment set, clothing set outfit, outfit, outfits, twinset, matching set
  `,
  'ETHNIC WEAR': `
    saree: sarees, sari, saris, lehenga saree;
    lehenga: lehengas, lehenga choli, lehenga cholis, ghagra, ghagra choli, chaniya choli;
    kurta set: kurta sets, kurta pyjama, kurta pajama, kurta with pyjama, salwar suit, salwar kameez, churidar kurta, anarkali suit, dress material, dress materials, unstitched dress material, kurta and churidar;
    dupatta: dupattas, odhni, chunni;
    clothing set: clothing sets, apparel set, apparel sets, baby set, kids set, baby clothing set, ethnic set, sherwani, sherwanis, kurta set kids, abaya, abayas, kaftan, kaftans, kimono, kimonos, hanbok, qipao, cheongsam, dirndl
  `,
  INNERWEAR: `
    bra: bras, brassiere, bralette, bralettes, sports bra, push up bra, t shirt bra, balconette, plunge bra, bandeau, nursing bra, bra extender, nipple covers, breast petals, adhesive bra;
    briefs: brief, panty, panties, knickers, thong, thongs, g string, hipster, hipsters, bikini brief, boyshorts, boy shorts, underwear bottom, underwear bottoms, kids underwear bottom, pants underwear;
    boxers: boxer, boxer shorts, boxer brief, boxer briefs, trunk, trunks, underwear trunks;
    vest: innerwear vests, innerwear vest, undershirt, undershirts, underwear top, kids underwear top, thermal top, thermal, thermals, long john, long johns, base layer, baselayer;
    camisole: camisoles, cami, camis, slip, slips, half slip, chemise, teddy;
    shapewear: shape wear, body shaper, corset, corsets, bustier, underwear corset, waist cincher, control brief, slimming;
    lingerie: lingerie set, lingerie sets, underwear set, underwear sets, underwear, innerwear, underwear body, body underwear, lingerie body, garter, suspender belt, stockings set
  `,
  NIGHTWEAR: `
    pyjamas: pyjama, pajama, pajamas, pj, pjs, pyjama set, pajama set, pyjama bottom, pyjama bottoms, pyjama top, pyjama jumpsuit, pyjama playsuit, pyjama jumpsuit playsuit, sleep set, sleepwear, sleep shorts, sleep pants, sleep top, night suit, night suits, nightsuit, night set;
    nightdress: nightdresses, nightie, nighties, nightgown, night gown, nightgowns, sleep shirt, nightshirt, night shirt, sleep dress, baby doll, baby dolls, babydoll, babydolls;
    robe: robes, bathrobe, bath robe, bathrobes, dressing gown, housecoat, kimono robe;
    lounge: loungewear, lounge wear, lounge pants, lounge pant, lounge shorts, lounge tshirts, lounge tshirt, lounge top, lounge set, lounge trousers, lounge joggers;
    sleepsuit: sleepsuits, sleep suit, sleeping bag, sleeping bags, sleep bag, sleeping sack, sleep sack, baby sleeping bag, swaddle
  `,
  SWIMWEAR: `
    swimsuit: swimsuits, swim suit, swimming costume, one piece, one piece swimsuit, bathing suit, swimwear, swim wear, swimming suit, swimdress, swim dress, burkini, monokini;
    bikini: bikinis, bikini set, bikini top, bikini bottom, bikini bottoms, tankini, swimwear top, swimwear bottom, swimwear set, swim top, swim bottom, swim briefs, swim brief;
    swim shorts: swim short, swimming shorts, swimming trunks, swim trunks, board short, beach shorts;
    beachwear: cover up, beach cover up, sarong, sarongs, pareo, beach dress, kaftan cover up, rash guard, rashguard
  `,
  FOOTWEAR: `
    shoes: shoe, footwear, casual shoes, casual shoe, formal shoes, formal shoe, other shoe, dress shoes, work shoes, boat shoes, canvas shoes, moccasins, moccasin, mocassin, loafers, loafer, derby, derbys, derbies, oxford, oxfords, brogue, brogues, monk strap, monk shoes, monks, monk, slip on, slip ons, slip on shoes, espadrille, espadrilles, mule, mules, clog, clogs, pre walkers, prewalkers, pram shoes, baby shoes, school shoes;
    sneakers: sneaker, trainers, trainer, sports shoes, sport shoes, running shoes, training shoes, tennis shoes, basketball shoes, football boots, cleats, walking shoes, hiking shoes, trail shoes, gym shoes, canvas sneakers, high tops, low tops, kicks;
    boots: boot, booties, bootie, ankle boots, ankle boot, chelsea boots, chelsea boot, knee high boots, over the knee boots, combat boots, biker boots, cowboy boots, wellies, wellington boots, rain boots, snow boots, hiking boots, desert boots, chukka boots, chukkas, work boots;
    heels: heel, high heels, pumps, pump, court shoes, court shoe, stilettos, stiletto, kitten heels, block heels, wedges, wedge, wedge heels, platforms, platform shoes, flatforms, flatform, slingbacks, slingback, peep toes, heeled sandals, heeled boots;
    flats: flat, ballerinas, ballerina, ballet flats, ballet pumps, flat shoes;
    sandals: sandal, sports sandals, sport sandals, gladiators, gladiator sandals, flat sandals, juttis, jutti, mojaris, mojari, kolhapuris, kolhapuri, floaters;
    flip flops: flip flop, flipflops, thongs sandals, slides, sliders, pool slides, beach slippers;
    slippers: slipper, house shoes, home slippers, moccasin slippers
  `,
  SOCKS: `
    socks: sock, ankle socks, trainer socks, no show socks, crew socks, knee socks, knee high socks, sports socks, footies, liners, sock liners, invisible socks, tights socks, underwear tights, leg warmers socks
  `,
  BAGS: `
    bag: bags, handbag, handbags, hand bag, tote, totes, tote bag, tote bags, shoulder bag, shoulder bags, cross body bag, crossbody, crossbody bag, cross body, sling bag, sling bags, satchel, satchels, hobo bag, bucket bag, shopper, shopper bag, clutch, clutches, clutch bag, evening bag, wristlet, pouch, pouches, mobile pouch, waist pouch, bumbag, bum bag, belt bag, fanny pack, messenger bag, laptop bag, laptop bags, tablet sleeve, laptop sleeve, briefcase, briefcases, weekend bag, weekender, gym bag, duffel, duffel bag, duffle bag, holdall, travel bag, beach bag, drawstring bag, potli, potlis, washbag, wash bag, toiletry bag, cosmetic bag, makeup bag, washing bag;
    backpack: backpacks, rucksack, rucksacks, daypack, school bag, school bags, knapsack;
    luggage: trolley bag, trolley bags, trolley, suitcase, suitcases, cabin bag, luggage set, travel trolley, duffel trolley
  `,
  WALLETS: `
    wallet: wallets, purse, purses, card holder, card holders, cardholder, card case, coin purse, money clip, passport holder, passport cover, travel wallet
  `,
  BELTS: `
    belt: belts, leather belt, waist belt, canvas belt, formal belt, casual belt, suspenders, suspender, braces
  `,
  WATCHES: `
    watch: watches, wristwatch, wrist watch, smartwatch, smart watch, smart watches, analog watch, digital watch, chronograph, fitness band, fitness tracker, watch strap, watch straps
  `,
  JEWELLERY: `
    jewellery: jewelry, jewellery set, jewellery sets, jewelry set, fashion jewellery, fine jewellery;
    earrings: earring, studs, stud earrings, hoops, hoop earrings, drop earrings, danglers, jhumka, jhumkas, jhumki, ear cuff, ear cuffs, chandbali, chandbalis;
    necklace: necklaces, necklace and chains, chain, chains, pendant, pendants, choker, chokers, locket, mangalsutra, necklace set;
    bracelet: bracelets, bangle, bangles, cuff, cuff bracelet, kada, anklet, anklets, charm bracelet;
    ring: rings, toe ring, toe rings, band ring, cocktail ring;
    brooch: brooches, pin, pins, maang tikka, maang tika, tikka, nose ring, nose pin, hair jewellery
  `,
  EYEWEAR: `
    sunglasses: sunglass, sun glasses, aviators, wayfarers, eyeglasses, eyeglass, spectacles, spectacle frames, glasses, eyewear, frames, optical frames, reading glasses, blue light glasses, goggles
  `,
  HEADWEAR: `
    cap: caps, baseball cap, peaked cap, cap peaked, snapback, trucker cap, flat cap;
    hat: hats, beanie, beanies, bucket hat, bucket hats, fedora, fedoras, panama, panama hat, straw hat, sun hat, felt hat, hat brim, brimmed hat, beret, berets, trilby, cloche, bobble hat, winter hat, knit hat, balaclava, balaclavas, headwear, hat beanie;
    headband: headbands, head band, hairband, hairbands, hair band, alice band, alice bands, hair alice band, turban, turbans, head scarf, headscarf, bandana, bandanas, durag, sweatband
  `,
  'TIES & CUFFLINKS': `
    tie: ties, neck tie, necktie, neckties, bow tie, bow ties, bowtie, skinny tie, cravat, ascot, tie pin, tie clip, tie bar, pocket square, pocket squares;
    cufflinks: cufflink, cuff links, ties and cufflinks, tie and cufflink set
  `,
  'SCARVES & STOLES': `
    scarf: scarves, hijab, hijabs, stole, stoles, shawl, shawls, wrap, wraps, muffler, mufflers, snood, snoods, neck warmer, pashmina, kerchief, neckerchief;
    gloves: glove, mittens, mitten, mitts, gauntlets, arm warmers
  `,
  'SHOE CARE': `
    shoe care: shoe accessories, shoe accessory, shoe laces, shoelaces, shoe lace, laces, insoles, insole, shoe polish, shoe cleaner, shoe trees, shoe tree, shoe horn, shoe bag, shoe deodoriser, sneaker cleaner
  `,
  ACCESSORIES: `
    hair accessory: hair accessories, hair clip, hair clips, hair slide, hair slides, hair grip, hair pins, hairpin, scrunchie, scrunchies, hair tie, hair ties, hair string, hair elastic, claw clip, hair claw, hair comb, hair bow, bows;
    umbrella: umbrellas, parasol;
    keychain: keychains, key chain, key chains, key ring, keyring, key rings, key holder, keyfob, bag charm, bag charms;
    travel accessory: travel accessories, travel pillow, neck pillow, luggage tag, eye mask, sleep mask, travel adapter;
    water bottle: water bottles, waterbottle, bottle, bottles, flask, sipper, tumbler;
    wristband: wristbands, wrist band;
    accessory gift set: accessory gift sets, accessories set, gift set accessories, combo set;
    phone case: earphones, headphones, wireless earphones, mobile case, phone cover, mobile cover, airpods case, earphone case, wireless earphone case, tech accessories, tablet case;
    mask: face mask, face masks, fashion mask, masks;
    baby accessory: baby bib, bib, bibs, pacifier, dummy, teether, baby blanket;
    pet accessory: dog wear, dog coat, pet wear, pet accessories, dog collar, dog lead, pet clothing;
    sewing: sewing kit, zipper head, patch, patches, badge, badges, iron on patch, button kit, stain remover, stain remover spray, fabric care, clothing mist, lint roller, garment care
  `,
  FRAGRANCE: `
    perfume: perfumes, perfume and body mist, body mist, body mists, fragrance, fragrances, eau de parfum, eau de toilette, edp, edt, cologne, colognes, attar, deodorant, deodorants, deo, deos, roll on, antiperspirant, fragrance gift set, perfume gift set
  `,
  MAKEUP: `
    lipstick: lipsticks, lip gloss, lip glosses, lip liner, lip liners, lip plumper, lip stain, lip tint, lip crayon, liquid lipstick, lip balm, lip care, lip colour, lips;
    eye makeup: eyes, mascara, mascaras, eyeliner, eyeliners, kajal, kajals, kajal and eyeliner, kohl, eyeshadow, eye shadow, eyeshadow palette, eye pencil, brow pencil, eyebrow pencil, false eyelashes, lashes;
    face makeup: foundation, foundations, foundation and primer, primer, concealer, concealers, compact, compacts, powder, face powder, highlighter, highlighters, highlighter and blush, blush, blusher, bronzer, contour, bb cream, cc cream, setting spray, makeup remover, makeup kit, makeup set, cosmetics, fine cosmetics, chem cosmetics, makeup;
    nails: nail polish, nail polishes, nail paint, nail lacquer, nail essentials, nail art, nail polish remover, press on nails;
    beauty tools: face brush, detangler brush, hair brush, makeup brush, makeup brushes, brush set, beauty blender, makeup sponge, tweezers, eyelash curler, mirror compact
  `,
  'SKIN & BODY CARE': `
    skin care: skin, face body, face and body, face moisturisers, face moisturiser, moisturiser, moisturizer, face cream, night cream, day cream, face serum and gel, face serum, serum, serums, face gel, mask and peel, face mask sheet, sheet mask, eye cream, face scrub and exfoliator, face scrub, exfoliator, face wash and cleanser, face wash, cleanser, toner, toners, sunscreen, sunscreens, sunblock, skincare, skin care set;
    body care: bath and body, body lotion, body lotions, body butter, body oil, body wash and scrub, body wash, shower gel, body scrub, soap, soaps, hand cream, hand wash, bath salts, bath bomb, talc, talcum powder;
    hair care: hair, shampoo, shampoos, conditioner, conditioners, hair oil, hair serum, hair mask, hair colour, hair color, hair dye, hair gel, hair wax, hair spray, hair styling;
    grooming: mens grooming kit, grooming kit, beard oil, beard balm, shaving cream, razor, razors, trimmer, trimmers, aftershave, after shave, beauty accessory, beauty accessories
  `,
  'SPORTS EQUIPMENT': `
    sports equipment: sports accessories, sports accessory, sports gear, basketball, basketballs, football, footballs, soccer ball, volleyball, cricket bat, cricket ball, tennis racket, badminton racket, racquet, shuttlecock, yoga mat, yoga mats, exercise mat, dumbbell, dumbbells, kettlebell, resistance band, skipping rope, jump rope, swimming goggles, swim cap, helmet, cycling helmet, shin guards, gym gloves, sports bottle
  `,
  HOME: `
    home decor: home, home decor, decor, home furnishing, home furnishings, cushion, cushions, cushion cover, cushion covers, pillow, pillows, pillow cover, pillow covers, throw, throws, blanket, blankets, quilt, quilts, comforter, comforters, duvet, duvet cover, dohar, dohars, bedsheet, bedsheets, bed sheet, bed sheets, bedding, bedding set, bed cover, towel, towels, bath towel, hand towel, bath mat, bathmat, bath rug, rug, rugs, carpet, carpets, table runner, doormat, curtain, curtains, blind, blinds, placemat, placemats, table cover, table linen, napkins, coaster, coasters, lamp, lamps, lamp shade, lampshade, table lamp, fairy lights, candle, candles, candle holder, vase, vases, planter, planters, pot, pots, showpiece, showpieces, figurine, statue, sculpture, wall art, wall decor, photo frame, photo frames, mirror, mirrors, clock, clocks, wall clock, storage box, storage, basket, baskets, organiser, organizer, shelf, shelves, side table, stool, furniture, mug, mugs, coffee mug, bowl, bowls, plate, plates, tray, trays, kitchen, kitchenware, dinnerware, serveware, glassware, tableware, cushion filler, bin, dustbin, laundry bag, laundry basket, diffuser, reed diffuser, fragrance diffuser, tissue holder, tissue box, cutlery, cutlery holder, cutlery set, platter, platters, serving platter, dish, dishes, pie dish, salt and pepper shakers, shaker set, bookends, book ends, diwan set, cup set, cups set, ceramic cup, tea cups, dinner set
  `,
  GIFTS: `
    gift: gifts, vouchers, voucher, free gifts, free gift, gift card, gift cards, gift box, giftbox, gift boxes, gift hamper, hamper, gift set, gift pack, ipad, toy, toys, soft toy, soft toys, plush, plushie, teddy bear, wood balls, game, games, puzzle, stationery, marker pen, pen, pens, notebook, notebooks, diary, rakhi, rakhis, rakhee, costume, costumes, fancy dress, party costume, halloween costume
  `,
};

/**
 * Labels too broad to place a product by themselves: such a category is resolved per product from
 * its title, and falls back to the group given here (null: no fallback group).
 */
export const GENERIC_LABELS: Record<string, string | null> = {
  accessories: 'ACCESSORIES',
  accessory: 'ACCESSORIES',
  'fashion accessories': 'ACCESSORIES',
  'other accessories': 'ACCESSORIES',
  'ladies accessories': 'ACCESSORIES',
  'mens accessories': 'ACCESSORIES',
  footwear: 'FOOTWEAR',
  shoes: 'FOOTWEAR',
  outerwear: 'OUTERWEAR',
  'coats and jackets': 'OUTERWEAR',
  'jackets and coats': 'OUTERWEAR',
  knitwear: 'TOPWEAR',
  knits: 'TOPWEAR',
  innerwear: 'INNERWEAR',
  underwear: 'INNERWEAR',
  lingerie: 'INNERWEAR',
  nightwear: 'NIGHTWEAR',
  sleepwear: 'NIGHTWEAR',
  loungewear: 'NIGHTWEAR',
  jewellery: 'JEWELLERY',
  jewelry: 'JEWELLERY',
  beauty: 'MAKEUP',
  'personal care': 'SKIN & BODY CARE',
  'home and living': 'HOME',
  home: 'HOME',
  'ethnic wear': 'ETHNIC WEAR',
  ethnic: 'ETHNIC WEAR',
  sportswear: null,
  outdoor: null,
  workwear: null,
  uniform: null,
  uniforms: null,
  'school uniform': null,
  maternity: null,
  activewear: null,
  sport: null,
  sports: null,
  clothing: null,
  clothes: null,
  apparel: null,
  fashion: null,
  garment: null,
  garments: null,
  'ready to wear': null,
  basics: null,
  essentials: null,
  collection: null,
  'new in': null,
  new: null,
  sale: null,
  outlet: null,
  other: null,
  others: null,
  misc: null,
  miscellaneous: null,
  various: null,
  unknown: null,
  'all products': null,
  all: null,
  general: null,
  default: null,
  'kids wear': null,
  kidswear: null,
  'baby wear': null,
  babywear: null,
  womenswear: null,
  menswear: null,
  ladieswear: null,
  women: null,
  men: null,
  kids: null,
  baby: null,
  unisex: null,
};

/**
 * Words that decide the group of a label whatever its head word says: "Swimwear bottom" is
 * swimwear, "Pyjama bottom" nightwear, "Underwear Tights" innerwear.
 */
export const DOMAIN_WORDS: Record<string, string> = {
  swim: 'SWIMWEAR',
  swimming: 'SWIMWEAR',
  bikini: 'SWIMWEAR',
  underwear: 'INNERWEAR',
  innerwear: 'INNERWEAR',
  lingerie: 'INNERWEAR',
  thermal: 'INNERWEAR',
  pyjama: 'NIGHTWEAR',
  pajama: 'NIGHTWEAR',
  nightwear: 'NIGHTWEAR',
  sleepwear: 'NIGHTWEAR',
  lounge: 'NIGHTWEAR',
  loungewear: 'NIGHTWEAR',
  night: 'NIGHTWEAR',
};

/** Title words that end the part of a title that names the product ("Kurta with Palazzos" is a kurta). */
export const TITLE_STOP_WORDS = new Set(['with', 'for', 'featuring', 'incl', 'including', 'plus']);

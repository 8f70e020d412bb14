package gen

// The vocabularies Generate draws from. Lists are "|"-separated to keep them compact; templates use
// {n} (noun), {a} (adjective), {p} (place) and {t} (a technology), with {N} and {A} capitalising
// the word. Grammar is approximate: the aim is text that looks and searches like a real catalogue.

// langSpec is one language's words and templates. Titles and sentences are keyed by item type,
// "" being the fallback for types without their own list.
type langSpec struct {
	code      string
	weight    int // per mille of items
	nouns     string
	adjs      string
	places    string
	titles    map[string]string
	sentences map[string]string
	// common titles repeat across the catalogue ("Untitled", "Lightning Talks").
	common string
	// sep joins sentences (empty for scripts written without spaces).
	sep string
}

var langSpecs = []langSpec{
	{
		code: "en", weight: 480,
		nouns:  "river|garden|window|shadow|harbour|mountain|letter|memory|journey|island|station|forest|kingdom|voyage|daughter|stranger|winter|summer|lighthouse|bridge|market|village|portrait|mirror|silence|storm|orchard|cathedral|valley|engine|theory|history|machine|ocean|empire|country|heart|night|city|sailor|widow|garden party|meadow|tower|railway|factory|chapel|courtyard|doorway|staircase|canal|quarry|pier|shipwreck|carnival|wedding|funeral|orphan|soldier|painter|miner|weaver|clockmaker|governess|prisoner|pilgrim|traveller|rebellion|harvest|eclipse|comet|glacier|volcano|monastery|fortress|labyrinth|manuscript|telescope|compass|lantern|violin",
		adjs:   "silent|ancient|hidden|golden|broken|distant|forgotten|northern|last|little|great|quiet|secret|early|modern|wild|lonely|bright|strange|endless|southern|eastern|western|crimson|silver|frozen|burning|sleeping|wandering|invisible|scarlet|pale|hollow|iron|velvet|restless|sacred|drowned|painted|unfinished|curious|perilous|merry|gentle|bitter",
		places: "London|Venice|the Highlands|Cornwall|New York|Kyoto|the Alps|Paris|Cairo|Lisbon|Edinburgh|the Thames|Brooklyn|Dublin|Marrakech|Reykjavík|Yorkshire|Brighton|Glasgow|Bombay|Calcutta|Cape Town|Boston|Chicago|New Orleans|San Francisco|Montana|Tasmania|Patagonia|the Nile|the Hebrides|Wales|Liverpool|Manchester|Oxford|Cambridge",
		titles: map[string]string{
			"photo":    "{A} {N}|View of {p}|{N} near {p}|Portrait of a {n}|Study for “{A} {N}”|Untitled ({n})|The {N}, {p}|{N} at Dusk|{N} – {p}|{A} {N} with {n}|The {N} in {p}",
			"video":    "{A} {t} with Python|Building a {a} {n} with {t}|Lessons from {t} in production|What's new in {t}|Testing {t}: a practical guide|From {t} to {t}|Keynote: The {A} {N}|Scaling {t} at a {a} start-up|Why your {t} is slow (and how to fix it)|Type-safe {t}",
			"document": "The {A} {N}|{N} and {N}|A History of {p}|The {N} of the {N}|{A} {N}: A Novel|Letters from {p}|The {N}: and Other Stories|“{A} {N}” and other poems|On the {A} {N}|The Strand Magazine, Vol. {n}|Pride and {N}",
		},
		sentences: map[string]string{
			"photo": "A study of the {n} and the {n}.|Taken near {p} during a {a} {n}.|The {n} is seen from a {a} {n}.|Gelatin silver print on paper.|Chromogenic print, one of an edition of five.|Presented by the artist.",
			"video": "This talk explores {t} and the {a} {n} behind it.|We show how {t} keeps a {a} {n} simple.|You will leave knowing when *not* to use {t}.|Paths like C:\\Users\\python are handled too.|The speaker maintains a \"{a}\" library for {t}.|No prior experience with {t} is needed.",
			"":      "The story follows a {a} {n} across {p}.|An account of the {n} in {p}, with notes on the {a} {n}.|It was first published as a series of letters.|Includes a \"{a}\" {n} and several illustrations.|A {a} tale of the {n} and the {n}.|Edited with an introduction and notes.",
		},
		common: "Untitled|[no title]|[title not known]|Memory|Walking the Dog|Gardeners|Lightning Talks|Keynote|Opening Remarks|Poems|Collected Works|Letters",
		sep:    " ",
	},
	{
		code: "fr", weight: 70,
		nouns:  "rivière|jardin|fenêtre|ombre|port|montagne|lettre|mémoire|voyage|île|gare|forêt|royaume|fille|étranger|hiver|été|phare|pont|marché|village|portrait|miroir|silence|tempête|cathédrale|vallée|machine|océan|cœur|nuit|ville",
		adjs:   "ancien|caché|doré|brisé|lointain|oublié|secret|étrange|sauvage|éternel|paisible|sombre",
		places: "Paris|Marseille|Lyon|Bretagne|Montréal|Genève|Bruxelles|Provence|Québec|Besançon",
		titles: map[string]string{
			"video": "Introduction à {t}|{t} en production : retour d’expérience|Comment tester {t}|Pourquoi {t} ?",
			"":      "Le {n} {a}|{N} et {n}|Souvenirs de {p}|Vue de {p}|Sans titre ({n})|Lettres de {p}|Un {n} {a}|Histoire de {p}",
		},
		sentences: map[string]string{
			"video": "Dans cette présentation, nous verrons comment utiliser {t}.|Retour d’expérience sur {t} à {p}.|Aucune connaissance préalable de {t} n’est nécessaire.",
			"":      "Ce livre raconte l’histoire d’un {n} {a} à {p}.|Photographie prise près de {p}.|Une réflexion sur le {n}, la {n} et le silence.|Édition annotée, avec une préface.|Un récit {a} du {n} et de la {n}.",
		},
		common: "Sans titre|Poèmes|Lettres|Présentations éclair",
		sep:    " ",
	},
	{
		code: "de", weight: 70,
		nouns:  "Fluss|Garten|Fenster|Schatten|Hafen|Berg|Brief|Erinnerung|Reise|Insel|Bahnhof|Wald|Königreich|Tochter|Fremde|Winter|Sommer|Leuchtturm|Brücke|Markt|Dorf|Spiegel|Stille|Sturm|Straße|Nacht|Stadt|Mühle|Wüste|Märchen",
		adjs:   "alte|stille|verborgene|goldene|ferne|vergessene|letzte|kleine|große|schöne|fremde|dunkle",
		places: "Berlin|München|Wien|Zürich|Hamburg|Köln|Dresden|Leipzig|Graz|Düsseldorf",
		titles: map[string]string{
			"video": "Einführung in {t}|{t} in der Praxis|Wie wir {t} testen|Schneller mit {t}",
			"":      "Der {a} {N}|Die {a} {N}|{N} und {N}|Erinnerungen an {p}|Ohne Titel ({N})|Briefe aus {p}|Über die {N}|Ansicht von {p}",
		},
		sentences: map[string]string{
			"video": "In diesem Vortrag zeigen wir, wie man {t} einsetzt.|Ein Erfahrungsbericht über {t} in {p}.|Vorkenntnisse in {t} sind nicht nötig.",
			"":      "Eine Geschichte über {n} und {n} in {p}.|Aufgenommen in der Nähe von {p}.|Gedichte über die {a} {N}.|Mit zahlreichen Abbildungen und einem Vorwort.|Die {a} {N} steht im Mittelpunkt.",
		},
		common: "Ohne Titel|Gedichte|Briefe|Blitzvorträge",
		sep:    " ",
	},
	{
		code: "es", weight: 70,
		nouns:  "río|jardín|ventana|sombra|puerto|montaña|carta|memoria|viaje|isla|estación|bosque|reino|hija|extranjero|invierno|verano|faro|puente|mercado|pueblo|retrato|espejo|silencio|tormenta|corazón|noche|ciudad|canción|camino",
		adjs:   "antiguo|escondido|dorado|roto|lejano|olvidado|último|pequeño|secreto|extraño|salvaje|eterno",
		places: "Madrid|Sevilla|Barcelona|Buenos Aires|México|Bogotá|Granada|Valparaíso|Lima|Córdoba",
		titles: map[string]string{
			"video": "Introducción a {t}|{t} en producción|Cómo probar {t}|¿Por qué {t}?",
			"":      "El {n} {a}|{N} y {n}|Historia de {p}|Recuerdos de {p}|Sin título ({n})|Cartas desde {p}|La {n} del {n}|Vista de {p}",
		},
		sentences: map[string]string{
			"video": "En esta charla veremos cómo usar {t}.|Una experiencia real con {t} en {p}.|No se necesita experiencia previa con {t}.",
			"":      "Un estudio sobre el {n} y la {n}.|Fotografía tomada cerca de {p}.|La novela narra la vida de un {n} {a} en {p}.|Incluye poemas sobre el {n} y el {n}.|Edición con notas y un prólogo.",
		},
		common: "Sin título|Poesías|Cartas|Charlas relámpago",
		sep:    " ",
	},
	{
		code: "it", weight: 45,
		nouns:  "fiume|giardino|finestra|ombra|porto|montagna|lettera|memoria|viaggio|isola|stazione|bosco|regno|figlia|straniero|inverno|estate|faro|ponte|mercato|paese|ritratto|specchio|silenzio|tempesta|cuore|notte|città",
		adjs:   "antico|nascosto|dorato|lontano|dimenticato|ultimo|piccolo|segreto|strano|eterno",
		places: "Roma|Venezia|Firenze|Napoli|Milano|Torino|Genova|Palermo|Bologna",
		titles: map[string]string{
			"video": "Introduzione a {t}|{t} in produzione|Come testare {t}|Perché {t}?",
			"":      "Il {n} {a}|{N} e {n}|Storia di {p}|Ricordi di {p}|Senza titolo ({n})|Lettere da {p}|Veduta di {p}|La Divina Commedia: {N}",
		},
		sentences: map[string]string{
			"video": "In questo talk vedremo come usare {t}.|Un'esperienza reale con {t} a {p}.",
			"":      "Uno studio sul {n} e sulla {n}.|Fotografia scattata vicino a {p}.|Il romanzo racconta la storia di un {n} {a} a {p}.|Edizione con note e prefazione.",
		},
		common: "Senza titolo|Poesie|Lettere",
		sep:    " ",
	},
	{
		code: "pt", weight: 40,
		nouns:  "rio|jardim|janela|sombra|porto|montanha|carta|memória|viagem|ilha|estação|floresta|reino|filha|estrangeiro|inverno|verão|farol|ponte|mercado|aldeia|retrato|espelho|silêncio|tempestade|coração|noite|cidade|canção",
		adjs:   "antigo|escondido|dourado|distante|esquecido|último|pequeno|secreto|estranho|eterno|selvagem",
		places: "Lisboa|Porto|São Paulo|Rio de Janeiro|Coimbra|Salvador|Recife|Belo Horizonte|Luanda",
		titles: map[string]string{
			"video": "Introdução ao {t}|{t} em produção|Como testar {t}|Por que {t}?",
			"":      "O {n} {a}|{N} e {n}|História de {p}|Memórias de {p}|Sem título ({n})|Cartas de {p}|Vista de {p}",
		},
		sentences: map[string]string{
			"video": "Nesta palestra veremos como usar {t}.|Uma experiência real com {t} em {p}.",
			"":      "Um estudo sobre o {n} e a {n}.|Fotografia tirada perto de {p}.|O romance conta a história de um {n} {a} em {p}.|Edição com notas e prefácio.",
		},
		common: "Sem título|Poesias|Cartas|Palestras relâmpago",
		sep:    " ",
	},
	{
		code: "nl", weight: 20,
		nouns:  "rivier|tuin|raam|schaduw|haven|berg|brief|herinnering|reis|eiland|station|bos|koninkrijk|dochter|vreemdeling|winter|zomer|vuurtoren|brug|markt|dorp|spiegel|stilte|storm|nacht|stad|molen|polder",
		adjs:   "oude|stille|verborgen|gouden|verre|vergeten|laatste|kleine|grote|vreemde|donkere",
		places: "Amsterdam|Rotterdam|Utrecht|Den Haag|Antwerpen|Gent|Groningen|Delft|Leiden",
		titles: map[string]string{
			"video": "Inleiding tot {t}|{t} in productie|Hoe wij {t} testen",
			"":      "De {a} {n}|{N} en {n}|Herinneringen aan {p}|Zonder titel ({n})|Brieven uit {p}|Gezicht op {p}",
		},
		sentences: map[string]string{
			"video": "In deze talk laten we zien hoe je {t} gebruikt.",
			"":      "Een studie over de {n} en de {n}.|Gefotografeerd in de buurt van {p}.|Het verhaal van een {a} {n} in {p}.|Met aantekeningen en een voorwoord.",
		},
		common: "Zonder titel|Gedichten|Brieven",
		sep:    " ",
	},
	{
		code: "pl", weight: 20,
		nouns:  "rzeka|ogród|okno|cień|port|góra|list|pamięć|podróż|wyspa|dworzec|las|królestwo|córka|nieznajomy|zima|lato|latarnia|most|rynek|wieś|portret|lustro|cisza|burza|serce|noc|miasto|źródło|łąka",
		adjs:   "stary|cichy|ukryty|złoty|daleki|zapomniany|ostatni|mały|wielki|dziki|tajemniczy|żółty",
		places: "Kraków|Warszawa|Gdańsk|Wrocław|Łódź|Poznań|Lublin|Zakopane|Toruń",
		titles: map[string]string{
			"video": "Wprowadzenie do {t}|{t} w praktyce|Jak testujemy {t}",
			"":      "{A} {n}|{N} i {n}|{N} — {p}|Bez tytułu ({n})|Widok: {p}",
		},
		sentences: map[string]string{
			"video": "W tej prezentacji pokażemy, jak używać {t}.",
			"":      "Opowieść o {n} i {n}.|Zdjęcie wykonane w pobliżu: {p}.|Książka opisuje {a} {n} i {n}.|Wydanie z przypisami i przedmową.",
		},
		common: "Bez tytułu|Wiersze|Listy|Listy z podróży",
		sep:    " ",
	},
	{
		code: "ja", weight: 45,
		nouns:  "川|庭|窓|影|港|山|手紙|記憶|旅|島|駅|森|王国|娘|冬|夏|灯台|橋|市場|村|肖像|鏡|静寂|嵐|心|夜|都市|桜|雪|月|羅生門",
		adjs:   "古い|静かな|隠された|黄金の|遠い|忘れられた|最後の|小さな|秘密の|不思議な",
		places: "東京|京都|大阪|奈良|札幌|横浜|鎌倉|長崎|金沢",
		titles: map[string]string{
			"video": "{t}入門|{t}で始める{n}|実践{t}|{t}を使った{n}の作り方",
			"":      "{a}{n}|{n}と{n}|{p}の{n}|{n}の{n}|無題（{n}）|{p}風景|{n}物語",
		},
		sentences: map[string]string{
			"video": "このトークでは{t}の使い方を紹介します。|{p}での{t}の導入事例を話します。",
			"":      "{p}の{n}についての研究です。|{a}{n}と{n}の物語。|{p}の近くで撮影された写真。|注釈と序文を付した版。",
		},
		common: "無題|詩集|書簡集|ライトニングトーク",
	},
	{
		code: "zh", weight: 40,
		nouns:  "河|花园|窗|影子|港口|山|书信|记忆|旅程|岛|车站|森林|王国|女儿|冬天|夏天|灯塔|桥|市场|村庄|肖像|镜子|寂静|风暴|心|夜|城市|山水|新書|詩經",
		adjs:   "古老的|安静的|隐藏的|金色的|遥远的|被遗忘的|最后的|小小的|秘密的|奇怪的",
		places: "北京|上海|杭州|西安|南京|苏州|成都|广州|香港|台北",
		titles: map[string]string{
			"video": "{t}入门|用{t}构建{n}|{t}实战|深入理解{t}",
			"":      "{a}{n}|{n}与{n}|{p}的{n}|{p}{n}记|无题（{n}）|{n}集|賈誼{n}",
		},
		sentences: map[string]string{
			"video": "本次演讲介绍如何使用{t}。|分享在{p}使用{t}的经验。",
			"":      "关于{p}的{n}的研究。|一个{a}{n}的故事。|摄于{p}附近。|附有注释和序言的版本。",
		},
		common: "无题|诗集|书信集|闪电演讲",
	},
	{
		code: "ko", weight: 20,
		nouns:  "강|정원|창문|그림자|항구|산|편지|기억|여행|섬|역|숲|왕국|딸|겨울|여름|등대|다리|시장|마을|초상|거울|침묵|폭풍|마음|밤|도시|바다",
		adjs:   "오래된|조용한|숨겨진|황금빛|먼|잊혀진|마지막|작은|비밀의|이상한",
		places: "서울|부산|경주|제주|인천|대구|광주|전주",
		titles: map[string]string{
			"video": "{t} 입문|{t}로 만드는 {n}|실전 {t}|{t} 파헤치기",
			"":      "{a} {n}|{n}과 {n}|{p}의 {n}|무제 ({n})|{n} 이야기",
		},
		sentences: map[string]string{
			"video": "이 발표에서는 {t} 사용법을 소개합니다.|{p}에서 {t}를 도입한 경험을 공유합니다.",
			"":      "{p}의 {n}에 관한 연구입니다.|{a} {n}에 대한 이야기.|{p} 근처에서 촬영한 사진.|주석과 서문이 포함된 판본.",
		},
		common: "무제|시집|서간집|라이트닝 토크",
		sep:    " ",
	},
	{
		code: "ru", weight: 40,
		nouns:  "река|сад|окно|тень|гавань|гора|письмо|память|путешествие|остров|вокзал|лес|царство|дочь|незнакомец|зима|лето|маяк|мост|рынок|деревня|портрет|зеркало|тишина|буря|сердце|ночь|город|степь|ёлка",
		adjs:   "старый|тихий|тайный|золотой|далёкий|забытый|последний|маленький|великий|дикий|странный|вечный",
		places: "Москва|Санкт-Петербург|Казань|Новгород|Самара|Ярославль|Тверь|Иркутск",
		titles: map[string]string{
			"video": "Введение в {t}|{t} на практике|Как мы тестируем {t}",
			"":      "{A} {n}|{N} и {n}|Без названия ({n})|Письма: {p}|{N}: повесть|{p}. {A} {n}",
		},
		sentences: map[string]string{
			"video": "В этом докладе мы расскажем, как использовать {t}.|Опыт внедрения {t}: {p}.",
			"":      "Исследование о {n} и {n}.|Фотография сделана недалеко от {p}.|Повесть о {a} {n}.|Издание с примечаниями и предисловием.",
		},
		common: "Без названия|Духовные оды|Стихотворения|Письма|Блиц-доклады",
		sep:    " ",
	},
	{
		code: "el", weight: 15,
		nouns:  "ποτάμι|κήπος|παράθυρο|σκιά|λιμάνι|βουνό|γράμμα|μνήμη|ταξίδι|νησί|σταθμός|δάσος|βασίλειο|κόρη|χειμώνας|καλοκαίρι|φάρος|γέφυρα|αγορά|χωριό|καθρέφτης|σιωπή|καταιγίδα|καρδιά|νύχτα|πόλη|θάλασσα|Ηλέκτρα",
		adjs:   "αρχαίος|ήσυχος|κρυφός|χρυσός|μακρινός|ξεχασμένος|τελευταίος|μικρός|μεγάλος|παράξενος",
		places: "Αθήνα|Θεσσαλονίκη|Κρήτη|Ρόδος|Κέρκυρα|Δελφοί|Πάτρα|Νάξος",
		titles: map[string]string{
			"video": "Εισαγωγή στην {t}|{t} στην πράξη",
			"":      "{A} {n}|{N} και {n}|{p}: {n}|Χωρίς τίτλο ({n})|Γράμματα από {p}",
		},
		sentences: map[string]string{
			"video": "Σε αυτή την ομιλία δείχνουμε πώς χρησιμοποιείται η {t}.",
			"":      "Μια μελέτη για τη {n} και το {n}.|Φωτογραφία κοντά στην {p}.|Η ιστορία ενός {a} {n}.|Έκδοση με σημειώσεις και πρόλογο.",
		},
		common: "Χωρίς τίτλο|Ποιήματα|Επιστολές",
		sep:    " ",
	},
	{
		code: "he", weight: 10,
		nouns:  "נהר|גן|חלון|צל|נמל|הר|מכתב|זיכרון|מסע|אי|תחנה|יער|ממלכה|בת|חורף|קיץ|מגדלור|גשר|שוק|כפר|דיוקן|מראה|שקט|סערה|לב|לילה|עיר|מדבר",
		adjs:   "עתיק|שקט|נסתר|מוזהב|רחוק|נשכח|אחרון|קטן|גדול|מוזר",
		places: "ירושלים|תל אביב|חיפה|צפת|אילת|עכו|באר שבע",
		titles: map[string]string{
			"video": "מבוא ל-{t}|{t} בפרודקשן|איך בודקים {t}",
			"":      "ה{n} ה{a}|{n} {a}|{n} ו{n}|זיכרונות מ{p}|ללא כותרת ({n})|מכתבים מ{p}|{n} ב{p}",
		},
		sentences: map[string]string{
			"video": "בהרצאה זו נראה כיצד להשתמש ב-{t}.",
			"":      "מחקר על ה{n} וה{n}.|צולם ליד {p}.|סיפורו של {n} {a}.|מהדורה עם הערות והקדמה.",
		},
		common: "ללא כותרת|שירים|מכתבים",
		sep:    " ",
	},
	{
		code: "ar", weight: 15,
		nouns:  "نهر|حديقة|نافذة|ظل|ميناء|جبل|رسالة|ذاكرة|رحلة|جزيرة|محطة|غابة|مملكة|ابنة|شتاء|صيف|منارة|جسر|سوق|قرية|صورة|مرآة|صمت|عاصفة|قلب|ليل|مدينة|صحراء",
		adjs:   "قديم|هادئ|خفي|ذهبي|بعيد|منسي|أخير|صغير|كبير|غريب",
		places: "القاهرة|بيروت|دمشق|بغداد|تونس|مراكش|الإسكندرية|عمّان|فاس",
		titles: map[string]string{
			"video": "مقدمة إلى {t}|{t} في بيئة الإنتاج|كيف نختبر {t}",
			"":      "{n} {a}|{n} و{n}|ذكريات من {p}|بدون عنوان ({n})|رسائل من {p}|{n} في {p}",
		},
		sentences: map[string]string{
			"video": "في هذه المحاضرة نعرض كيفية استخدام {t}.",
			"":      "دراسة عن {n} و{n}.|صورة التقطت بالقرب من {p}.|قصة {n} {a}.|طبعة مع حواشٍ ومقدمة.",
		},
		common: "بدون عنوان|قصائد|رسائل",
		sep:    " ",
	},
}

// techTerms fill {t}: the videos are conference talks, as in the real catalogue.
const techTerms = "asyncio|Django|NumPy|pandas|type hints|FastAPI|pytest|Rust extensions|CPython|data pipelines|machine learning|packaging|WebAssembly|GraphQL|Jupyter|PyPy|Flask|SQLAlchemy|Kubernetes|Cython|MicroPython|Polars|async generators|the GIL|🐍 Python 3.13|Celery|Dask|scikit-learn|PyTorch|Pydantic|descriptors|metaclasses|decorators|Hypothesis|mypy|Ruff|uv|Poetry|Wagtail|Plone|Twisted|Trio|Numba|Matplotlib|Bokeh|OpenCV|Raspberry Pi|CircuitPython|Sphinx|PostgreSQL|Redis|Elasticsearch|GeoDjango|Pyodide"

// categorySpec is one category; lang, when set, is the language most of its items are in.
type categorySpec struct {
	slug, name, topic, lang string
	// codes are classification codes that go into keywords (LCC classes for documents).
	codes string
}

// categories per type, most popular first: the order gives the long tail.
var categorySpecs = map[string][]categorySpec{
	"document": {
		{slug: "language-and-literature", name: "Language and Literature", topic: "literature", codes: "PR|PS|PQ|PT|PN|PG|PL"},
		{slug: "world-history", name: "World History", topic: "history", codes: "D|DA|DC|DK|DS"},
		{slug: "uncategorized", name: "Uncategorized", topic: "general"},
		{slug: "philosophy-psychology-religion", name: "Philosophy, Psychology, Religion", topic: "philosophy", codes: "B|BF|BL|BR|BX"},
		{slug: "history-of-the-americas", name: "History of the Americas", topic: "history", codes: "E|F"},
		{slug: "general-works", name: "General Works", topic: "general", codes: "AP|AC|AE"},
		{slug: "science", name: "Science", topic: "science", codes: "Q|QA|QB|QC|QD|QH"},
		{slug: "social-sciences", name: "Social Sciences", topic: "society", codes: "HQ|HV|HN|HB"},
		{slug: "geography-anthropology-recreation", name: "Geography, Anthropology, Recreation", topic: "history", codes: "G|GN|GR|GV"},
		{slug: "technology", name: "Technology", topic: "technology", codes: "T|TX|TN|TP"},
		{slug: "fine-arts", name: "Fine Arts", topic: "arts", codes: "N|NA|ND|NK"},
		{slug: "agriculture", name: "Agriculture", topic: "technology", codes: "S|SB|SF|SK"},
		{slug: "medicine", name: "Medicine", topic: "science", codes: "R|RC|RM"},
		{slug: "bibliography-library-science", name: "Bibliography, Library Science", topic: "general", codes: "Z"},
		{slug: "political-science", name: "Political Science", topic: "society", codes: "J|JC|JK"},
		{slug: "music", name: "Music", topic: "arts", codes: "M|ML|MT"},
		{slug: "auxiliary-sciences-of-history", name: "Auxiliary Sciences of History", topic: "history", codes: "CS|CT|CB"},
		{slug: "education", name: "Education", topic: "society", codes: "L|LB|LC"},
		{slug: "law", name: "Law", topic: "society", codes: "K|KF"},
		{slug: "military-science", name: "Military Science", topic: "history", codes: "U|UA"},
		{slug: "naval-science", name: "Naval Science", topic: "history", codes: "V|VK"},
	},
	"photo": {
		{slug: "places", name: "Places", topic: "places"},
		{slug: "uncategorized", name: "Uncategorized", topic: "objects"},
		{slug: "people", name: "People", topic: "people"},
		{slug: "objects", name: "Objects", topic: "objects"},
		{slug: "society", name: "Society", topic: "people"},
		{slug: "nature", name: "Nature", topic: "nature"},
		{slug: "emotions-concepts-and-ideas", name: "Emotions, Concepts and Ideas", topic: "ideas"},
		{slug: "architecture", name: "Architecture", topic: "places"},
		{slug: "literature-and-fiction", name: "Literature and Fiction", topic: "ideas"},
		{slug: "symbols-personifications", name: "Symbols & Personifications", topic: "ideas"},
		{slug: "abstraction", name: "Abstraction", topic: "ideas"},
		{slug: "religion-and-belief", name: "Religion and Belief", topic: "ideas"},
		{slug: "interiors", name: "Interiors", topic: "objects"},
		{slug: "work-and-occupations", name: "Work and Occupations", topic: "people"},
		{slug: "leisure-and-pastimes", name: "Leisure and Pastimes", topic: "people"},
	},
	"video": {
		{slug: "pycon-us", name: "PyCon US", topic: "python", lang: "en"},
		{slug: "europython", name: "EuroPython", topic: "python", lang: "en"},
		{slug: "pycon-de", name: "PyCon DE", topic: "python", lang: "de"},
		{slug: "pycon-italia", name: "PyCon Italia", topic: "python", lang: "it"},
		{slug: "pycon-kr", name: "PyCon Korea", topic: "python", lang: "ko"},
		{slug: "pycon-jp", name: "PyCon JP", topic: "python", lang: "ja"},
		{slug: "uncategorized", name: "Uncategorized", topic: "python"},
		{slug: "pycon-fr", name: "PyCon FR", topic: "python", lang: "fr"},
		{slug: "pythonbrasil", name: "Python Brasil", topic: "python", lang: "pt"},
		{slug: "scipy", name: "SciPy", topic: "scientific", lang: "en"},
		{slug: "djangocon-us", name: "DjangoCon US", topic: "python", lang: "en"},
		{slug: "pydata-london", name: "PyData London", topic: "scientific", lang: "en"},
		{slug: "pycon-es", name: "PyCon España", topic: "python", lang: "es"},
		{slug: "pycon-au", name: "PyCon AU", topic: "python", lang: "en"},
		{slug: "pycon-cn", name: "PyCon China", topic: "python", lang: "zh"},
		{slug: "pycon-ru", name: "PyCon Russia", topic: "python", lang: "ru"},
		{slug: "pycon-pl", name: "PyCon PL", topic: "python", lang: "pl"},
		{slug: "pycon-il", name: "PyCon Israel", topic: "python", lang: "he"},
		{slug: "pycon-gr", name: "PyCon Greece", topic: "python", lang: "el"},
		{slug: "kiwi-pycon", name: "Kiwi PyCon", topic: "python", lang: "en"},
	},
}

// topics are the tag vocabularies, in English like the subject headings of real collections.
var topics = map[string]string{
	"literature": "Fiction|Poetry|Short stories|Drama|Love stories|Adventure stories|Epic poetry|Letters|Essays|Children's literature|Fairy tales|Science fiction|Detective and mystery stories|Historical fiction|Humorous stories|Sea stories|Ghost stories|Satire|Tragedies|Sonnets",
	"history":    "History|Wars|Revolutions|Biography|Kings and rulers|Antiquities|Colonies|Civilization|Middle Ages|Exploration|Description and travel|Politics and government|Social life and customs|Voyages and travels",
	"philosophy": "Philosophy|Ethics|Psychology|Religion|Theology|Mythology|Logic|Metaphysics|Christianity|Buddhism|Spiritualism|Mysticism",
	"science":    "Astronomy|Mathematics|Physics|Chemistry|Botany|Zoology|Geology|Natural history|Evolution|Birds|Insects|Electricity|Anatomy|Hygiene",
	"society":    "Economics|Women|Sociology|Labor|Education|Law|Slavery|Children|Family|Crime|Etiquette|Temperance",
	"technology": "Engineering|Cooking|Railroads|Mining|Inventions|Photography|Agriculture|Gardening|Navigation|Textiles|Bee culture",
	"arts":       "Art|Painting|Architecture|Music|Songs|Hymns|Opera|Sculpture|Decorative arts|Drawing",
	"general":    "Periodicals|Encyclopedias and dictionaries|Anthologies|Quotations|Readers|Curiosities and wonders",
	"places":     "townscape|landscape|street|river|bridge|coast|mountain|ruins|city|tower|church|harbour|park|road|desert",
	"people":     "portrait|self-portrait|children|family|crowd|worker|dancer|musician|couple|woman|man|group|soldier|farmer",
	"objects":    "chair|bottle|clothing|table|window|door|mirror|clock|lamp|car|boat|bicycle|book|flag",
	"nature":     "trees|flowers|animals|birds|sea|sky|clouds|snow|water|plants|horse|dog|cat|rocks",
	"ideas":      "memory|time|death|love|light|shadow|reflection|circle|grid|repetition|angel|cross|moon|sun|dream",
	"python":     "python|django|flask|asyncio|testing|pytest|packaging|web|api|security|performance|typing|cpython|education|community|devops|databases|open source|diversity|keynote|lightning talks|tutorial|rust|micropython|fastapi",
	"scientific": "python|data science|machine learning|pandas|numpy|scipy|visualization|jupyter|statistics|deep learning|gpu|polars|astronomy|climate|biology",
}

// cultureSpec is a way of writing people's names; weight is relative.
type cultureSpec struct {
	weight             int
	forenames, surname string
	// style: "latin" (natural order, sometimes "Surname, Forename" or with initials), "plain"
	// (forename surname), "family" (surname, space, forename), "joined" (surname then forename,
	// no space, as Chinese and Korean names are written).
	style string
	// extras lengthen names past the plain forename-surname pairs, so a large pool of authors
	// stays distinct: "initials" adds a middle initial or a second forename, "second" only a
	// second forename, "chars" a second character of the given name; joiner goes before it.
	extras, joiner string
}

var cultureSpecs = []cultureSpec{
	{weight: 300, style: "latin", extras: "initials", joiner: " ",
		forenames: "James|Mary|John|Patricia|Robert|Jennifer|Michael|Linda|William|Elizabeth|David|Barbara|Richard|Susan|Joseph|Jessica|Thomas|Sarah|Charles|Karen|Emily|Oliver|Charlotte|Henry|Alice|Arthur|Grace|George|Florence|Edward|Keith|Diane|Margaret|Walter|Edith|Harold|Dorothy|Frederick|Ada|Samuel|Harriet|Isaac|Beatrix|Nathaniel|Virginia|Ernest|Zora|Ian",
		surname:   "Smith|Johnson|Williams|Brown|Jones|Miller|Davis|Wilson|Anderson|Taylor|Thomas|Moore|Martin|Jackson|Thompson|White|Harris|Clark|Lewis|Robinson|Walker|Young|Allen|King|Wright|Scott|Green|Baker|Adams|Nelson|Hill|Campbell|Mitchell|Roberts|Carter|Phillips|Evans|Turner|Parker|Collins|O'Brien|MacDonald|Fitzgerald|Arbus|Arnatt|Hughes|Edwards|Morgan|Cooper|Ward|Bailey|Bell|Murphy|Cook|Reed|Hawthorne|Dickinson|Whitman|Thoreau|Emerson|Shelley|Brontë|Gaskell|Hardy|Trollope|Kipling"},
	{weight: 80, style: "latin", extras: "initials", joiner: "-",
		forenames: "Jean|Marie|Pierre|Françoise|Étienne|Hélène|Léa|Chloé|Benoît|Jérôme|Amélie|Gaëlle|Noël|Zoé|Théo|Loïc|Anaïs|Cécile|René|Joël|Louis|Claude|Michel|Sophie|Émile",
		surname:   "Martin|Bernard|Dubois|Thomas|Robert|Richard|Petit|Durand|Leroy|Moreau|Lefèvre|Girard|Rousseau|Mercier|Bonnet|Lambert|Fontaine|Chevalier|Faure|Gauthier|Perrin|Brun|Blanc|Guérin|de Beauvoir|Lévêque|Hugo|Verne|Zola|Daudet"},
	{weight: 80, style: "latin", extras: "initials", joiner: " ",
		forenames: "Jürgen|Günter|Jörg|Björn|Sören|Käthe|Ursula|Anna|Lukas|Felix|Greta|Hannah|Matthias|Sabine|Wolfgang|Heinz|Uwe|Dörte|Friedrich|Johann|Klara|Hedwig|Ludwig|Gottfried",
		surname:   "Müller|Schmidt|Schneider|Fischer|Weber|Meyer|Wagner|Becker|Schulz|Hoffmann|Schäfer|Koch|Bauer|Richter|Klein|Wolf|Schröder|Neumann|Schwarz|Zimmermann|Braun|Krüger|Hofmann|Hartmann|Weiß|Groß|von Weizsäcker|Goethe|Heine|Fontane"},
	{weight: 80, style: "latin", extras: "second", joiner: " ",
		forenames: "José|María|Ángel|Inés|Sofía|Martín|Lucía|Andrés|Raúl|Mónica|Iñaki|Begoña|Jesús|Núria|Joaquín|Óscar|Carmen|Javier|Pilar|Benito|Rosalía|Gabriel",
		surname:   "García|Rodríguez|González|Fernández|López|Martínez|Sánchez|Pérez|Gómez|Díaz|Hernández|Muñoz|Álvarez|Jiménez|Ruiz|Romero|Núñez|Peña|Ibáñez|Castañeda|Galdós|Unamuno|Quiroga|Bécquer"},
	{weight: 50, style: "latin", extras: "initials", joiner: " ",
		forenames: "Giuseppe|Giovanni|Francesca|Chiara|Niccolò|Lorenzo|Giulia|Matteo|Beatrice|Alessandro|Dante|Luigi|Grazia|Elsa|Cesare|Italo|Natalia|Primo|Ugo|Vittoria",
		surname:   "Rossi|Russo|Ferrari|Esposito|Bianchi|Romano|Colombo|Ricci|Marino|Greco|Bruno|Gallo|De Luca|D'Angelo|Alighieri|Manzoni|Verga|Pirandello|Deledda|Carducci|Leopardi|Foscolo|Collodi|Svevo"},
	{weight: 40, style: "latin", extras: "second", joiner: " ",
		forenames: "João|Conceição|Antônio|Sebastião|Luís|Inês|Gonçalo|Tomé|Fátima|Estêvão|Machado|Cecília|Clarice|Rui|Eça|Aluísio",
		surname:   "Silva|Santos|Oliveira|Souza|Pereira|Ferreira|Gonçalves|Magalhães|Araújo|Simões|Queirós|Assis|Camões|Pessoa|Azevedo|Alencar"},
	{weight: 30, style: "latin", extras: "second", joiner: " ",
		forenames: "Łukasz|Wojciech|Małgorzata|Agnieszka|Krzysztof|Zofia|Paweł|Grzegorz|Katarzyna|Jędrzej|Bolesław|Eliza|Henryk|Maria|Stanisław|Władysław",
		surname:   "Nowak|Kowalski|Wiśniewski|Wójcik|Kowalczyk|Kamiński|Lewandowski|Zieliński|Szymański|Woźniak|Dąbrowski|Kozłowski|Sienkiewicz|Prus|Orzeszkowa|Reymont|Żeromski|Mickiewicz"},
	{weight: 30, style: "latin", extras: "initials", joiner: " ",
		forenames: "Søren|Åsa|Bjørn|Øystein|Märta|Ingrid|Lars|Sigrid|Håkan|Ólafur|Ásta|Jöns|Selma|Knut|Henrik|Astrid",
		surname:   "Andersen|Johansson|Nilsson|Ødegaard|Lindqvist|Berg|Håkansson|Sigurðsson|Kierkegaard|Ståhlberg|Berzelius|Lagerlöf|Hamsun|Ibsen|Strindberg|Undset"},
	{weight: 60, style: "latin", extras: "initials", joiner: " ",
		forenames: "Иван|Мария|Алексей|Наталья|Дмитрий|Ольга|Сергей|Анна|Фёдор|Татьяна|Николай|Елена|Михаил|Юлия|Лев|Антон|Марина|Борис|Ирина|Пётр",
		surname:   "Иванов|Смирнов|Кузнецов|Попов|Васильев|Петров|Соколов|Михайлов|Новиков|Фёдоров|Морозов|Волков|Лебедев|Толстой|Чехов|Гоголь|Тургенев|Лермонтов|Бунин|Куприн"},
	{weight: 20, style: "plain", extras: "second", joiner: " ",
		forenames: "Γιώργος|Μαρία|Νίκος|Ελένη|Κώστας|Αικατερίνη|Δημήτρης|Σοφία|Γιάννης|Άννα|Οδυσσέας|Πηνελόπη",
		surname:   "Παπαδόπουλος|Παπαγεωργίου|Οικονόμου|Γεωργίου|Νικολάου|Καραγιάννης|Βλάχος|Αντωνίου|Δημητρίου|Μακρής|Καζαντζάκης|Σεφέρης"},
	{weight: 40, style: "family",
		forenames: "太郎|花子|健一|美咲|翔太|陽子|大輔|由美|誠|直美|龍之介|漱石|一葉|鴎外|晶子|賢治|治|康成",
		surname:   "山田|佐藤|鈴木|高橋|田中|渡辺|伊藤|中村|小林|加藤|芥川|夏目|森|樋口|与謝野|宮沢|太宰|川端"},
	{weight: 30, style: "plain", extras: "second", joiner: " ",
		forenames: "Tarō|Hanako|Ken'ichi|Misaki|Shōta|Yōko|Daisuke|Yumi|Makoto|Naomi|Haruki|Yukio",
		surname:   "Yamada|Satō|Suzuki|Takahashi|Tanaka|Watanabe|Itō|Nakamura|Kobayashi|Katō|Murakami|Mishima"},
	{weight: 40, style: "joined", extras: "chars",
		forenames: "伟|芳|娜|英|敏|静|丽|强|磊|军|洋|勇|艳|杰|明|华|文|玲",
		surname:   "王|李|张|刘|陈|杨|黄|赵|吴|周|徐|孙|马|朱|欧阳|鲁|郭|林"},
	{weight: 30, style: "family", extras: "second", joiner: "",
		forenames: "Wei|Fang|Na|Ying|Min|Jing|Li|Qiang|Lei|Jun|Ming|Hua",
		surname:   "Wang|Li|Zhang|Liu|Chen|Yang|Huang|Zhao|Wu|Zhou|Xu|Sun"},
	{weight: 20, style: "joined",
		forenames: "민준|서연|지훈|하은|도윤|지우|서준|수아|현우|지민|예준|채원",
		surname:   "김|이|박|최|정|강|조|윤|장|임|한|오"},
	{weight: 25, style: "plain", extras: "second", joiner: " ",
		forenames: "محمد|أحمد|فاطمة|علي|عائشة|يوسف|مريم|عمر|ليلى|خالد|أكرم|نجيب|طه|جبران",
		surname:   "العلي|حداد|منصور|الحسن|خوري|النجار|سالم|إبراهيم|زعتري|محفوظ|حسين|درويش"},
	{weight: 15, style: "plain", extras: "second", joiner: " ",
		forenames: "דוד|שרה|משה|רחל|יוסף|מרים|אברהם|נועה|יעל|איתי|עמוס|לאה",
		surname:   "כהן|לוי|מזרחי|פרץ|ביטון|אברהמי|פרידמן|שפירא|עוז|עגנון"},
}

// collectiveAuthors take fixed popular ranks, as "Various" and "Anonymous" do in real collections.
var collectiveAuthors = map[int]string{0: "Anonymous", 3: "Various", 11: "Various speakers", 40: "Unknown photographer"}

var licenses = []struct {
	id     string
	weight int
}{
	{"CC0-1.0", 40}, {"CC-BY-4.0", 25}, {"CC-BY-SA-4.0", 15}, {"CC-BY-2.0", 8}, {"CC-BY-NC-4.0", 6},
	{"CC-BY-NC-SA-4.0", 4}, {"CC-BY-ND-4.0", 2},
}

type mediaSpec struct {
	mime, ext string
	weight    int
	// perPixel is a photo file's typical size in bytes per pixel.
	perPixel float64
}

var mediaSpecs = map[string][]mediaSpec{
	"photo":    {{"image/jpeg", "jpg", 80, 0.35}, {"image/png", "png", 8, 1.6}, {"image/tiff", "tif", 7, 3}, {"image/webp", "webp", 5, 0.2}},
	"video":    {{"video/mp4", "mp4", 70, 0}, {"video/webm", "webm", 15, 0}, {"video/ogg", "ogv", 8, 0}, {"video/x-matroska", "mkv", 5, 0}, {"video/quicktime", "mov", 2, 0}},
	"document": {{"application/epub+zip", "epub", 55, 0}, {"application/pdf", "pdf", 30, 0}, {"text/html", "html", 8, 0}, {"text/plain", "txt", 7, 0}},
}

// photoSizes are common camera and scan dimensions (landscape; some items are turned).
var photoSizes = [][2]int64{
	{6000, 4000}, {4032, 3024}, {3000, 2000}, {1920, 1080}, {1024, 768}, {800, 600}, {5472, 3648},
	{2048, 1536}, {4928, 3264}, {3264, 2448}, {8256, 5504}, {640, 480},
}

var cameras = []string{"Nikon D850", "Canon EOS 5D Mark IV", "Leica M6", "Hasselblad 500C/M", "Fujifilm X-T4", "Sony α7 III", "iPhone 12"}

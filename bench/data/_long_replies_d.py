"""long_replies conversations lr-13 .. lr-16 (see make_long_replies.py); lr-13 to lr-15 are in
Traditional Chinese or mixed Chinese and English."""

from make_long_replies import A, Conv, U

CONVS = []

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-13", "陳怡安", "zh", [
("2025-05-06 21:10", [
U("我在台中開一間小補習班，想用 Django 做一個給家長看的網站。現在學校借我們用的那台伺服器只有 "
  "Python 3.8，沒辦法升級。", "py38"),
A(r"""
用 Django 做補習班的家長網站很合適：內建的後台（admin）可以直接給老師輸入資料，登入、權限、表單這些也都有現成的。Python 3.8 的限制主要影響的是 Django 版本的選擇。

**版本建議：Django 4.2 LTS**

- Django 4.2 是長期支援版（LTS），支援 Python 3.8 到 3.12，官方安全性更新到 2026 年 4 月。
- Django 5.0 以後需要 Python 3.10 以上，所以在 3.8 上不能用。
- 另外要注意 Python 3.8 本身在 2024 年 10 月已經停止官方支援，伺服器能升級的話，之後還是建議找機會升級。

安裝時把版本鎖住，避免不小心裝到不相容的版本：

```
python3.8 -m venv venv
source venv/bin/activate
pip install "Django>=4.2,<5.0"
```

**專案結構建議**

```
cram_site/
    manage.py
    cram_site/        # 設定檔 settings.py、urls.py
    school/           # 主要的 app：學生、班級、出缺席、成績
        models.py
        admin.py
        views.py
        templates/school/
```

一開始只做一個 app 就好，不要拆太細，之後維護的人比較好理解。

**Python 3.8 要注意的寫法**

- 不能用 `match` 語法（3.10 才有）。
- 型別標註不能寫 `list[int] | None` 這種新寫法，要用 `from typing import List, Optional`，或在檔案最上面加 `from __future__ import annotations`。
- 一些新套件已經不支援 3.8 了，安裝前先看套件的 Python 版本需求。

**資料庫**

學生人數不多的話，一開始用 Django 預設的 SQLite 就夠用，備份也只是複製一個檔案。如果之後要多人同時大量寫入，再換 PostgreSQL。

**時區和語系**

在 `settings.py` 設定：

```python
LANGUAGE_CODE = "zh-hant"
TIME_ZONE = "Asia/Taipei"
USE_TZ = True
```

這樣後台介面會是繁體中文，時間也會用台灣時間顯示。

**第一步可以做什麼**

1. 建好專案，開啟 admin，先建立「班級」和「學生」兩個資料表。
2. 請老師試著在後台輸入一個班的學生，看看欄位夠不夠。
3. 再決定家長端要看到哪些資訊。

可以跟我說一下補習班大概的規模、有幾位老師，還有家長最想看到什麼嗎？我再幫你規劃資料表。
""", "django42"),
U("學生大概 150 個，老師加我只有三個人。家長最想看的是孩子的出缺席和考試成績。", "size"),
A(r"""
150 位學生、三位老師是很適合 Django 的規模：資料量很小，SQLite 完全夠用；重點是讓老師輸入方便、家長看得清楚。以出缺席和成績為核心，資料表可以這樣設計。

**資料模型**

```python
from django.conf import settings
from django.db import models


class ClassGroup(models.Model):
    name = models.CharField("班級名稱", max_length=50)      # 例如：國二數學A班
    weekday = models.CharField("上課時間", max_length=50)    # 例如：週二、週四 19:00


class Student(models.Model):
    name = models.CharField("姓名", max_length=30)
    school = models.CharField("就讀學校", max_length=50, blank=True)
    groups = models.ManyToManyField(ClassGroup, verbose_name="班級", blank=True)


class Guardian(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    phone = models.CharField("手機", max_length=20, unique=True)
    children = models.ManyToManyField(Student, verbose_name="孩子")


class Attendance(models.Model):
    STATUS = [("present", "出席"), ("late", "遲到"), ("absent", "缺席"), ("leave", "請假")]
    student = models.ForeignKey(Student, on_delete=models.CASCADE)
    group = models.ForeignKey(ClassGroup, on_delete=models.CASCADE)
    date = models.DateField("日期")
    status = models.CharField("狀態", max_length=10, choices=STATUS, default="present")

    class Meta:
        unique_together = ("student", "group", "date")


class ExamScore(models.Model):
    student = models.ForeignKey(Student, on_delete=models.CASCADE)
    group = models.ForeignKey(ClassGroup, on_delete=models.CASCADE)
    title = models.CharField("考試名稱", max_length=50)
    date = models.DateField("日期")
    score = models.DecimalField("分數", max_digits=5, decimal_places=1)
```

`unique_together` 可以避免同一天同一個學生被點名兩次。

**老師端：用 admin 就好**

三位老師不需要另外做介面。把 `Attendance` 做成「以班級為單位」的點名頁最實用：在 admin 裡用 inline，一次列出整班學生，老師只要改狀態。成績也可以用同樣方式整班輸入。

**家長端：只看自己的孩子**

家長登入後，只能看到 `Guardian.children` 裡的學生，這點一定要在 view 裡檢查：

```python
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render


@login_required
def child_detail(request, student_id):
    guardian = request.user.guardian
    student = get_object_or_404(guardian.children, pk=student_id)
    attendance = Attendance.objects.filter(student=student).order_by("-date")[:30]
    scores = ExamScore.objects.filter(student=student).order_by("-date")[:20]
    return render(request, "school/child_detail.html",
                  {"student": student, "attendance": attendance, "scores": scores})
```

**家長帳號**

家長多半不想記帳號，可以用手機號碼當帳號，第一次登入時再請他們改密碼。兄弟姊妹都在補習班的情況，一個家長帳號對應多個孩子，上面的設計已經支援。

**隱私**

成績屬於個人資料，網站一定要用 HTTPS，而且不要讓網址上的學生編號可以被隨便猜到後看到別人的資料（上面的寫法已經擋掉這個問題）。
""", "models"),
U("我比較喜歡簡單的做法，不想搞前後端分離，React 那些我也不熟。", "simple"),
A(r"""
完全可以，而且以你們的規模，簡單的做法反而是比較好的選擇。Django 本來就擅長「伺服器端產生網頁」：view 把資料交給 template，template 產生 HTML，瀏覽器直接顯示。不需要另外寫一個前端專案、也不用 API。

**基本做法：Django template + Bootstrap**

用 Bootstrap 的 CSS 讓畫面在手機上好看，家長大多用手機看：

```html
{% extends "school/base.html" %}
{% block content %}
<h2>{{ student.name }} 的出缺席</h2>
<table class="table table-sm">
  <thead><tr><th>日期</th><th>班級</th><th>狀態</th></tr></thead>
  <tbody>
  {% for a in attendance %}
    <tr class="{% if a.status == 'absent' %}table-danger{% endif %}">
      <td>{{ a.date|date:"m/d" }}</td>
      <td>{{ a.group.name }}</td>
      <td>{{ a.get_status_display }}</td>
    </tr>
  {% endfor %}
  </tbody>
</table>
{% endblock %}
```

缺席的那一行用紅底顯示，家長一眼就看得到。

**需要一點互動時：htmx**

如果之後想要「點一下就切換月份、不重新整理整頁」，可以加 **htmx**。它只是一個 JavaScript 檔，不用學框架，在 HTML 屬性上寫就好：

```html
<select name="month"
        hx-get="{% url 'child_attendance' student.id %}"
        hx-target="#attendance-table">
  <option value="2025-05">5 月</option>
  <option value="2025-04">4 月</option>
</select>
<div id="attendance-table">{% include "school/_attendance_table.html" %}</div>
```

後端的 view 只要回傳表格那一小段 HTML。對不熟前端的人來說，這是最省力的方式。

**成績趨勢圖**

家長很喜歡看成績變化。不用 React 也可以：在 template 裡放一個 Chart.js 圖表，把分數用 Django 的 `json_script` 過濾器傳進去：

```html
{{ scores_data|json_script:"scores-data" }}
<canvas id="scoreChart"></canvas>
<script>
  const data = JSON.parse(document.getElementById("scores-data").textContent);
  new Chart(document.getElementById("scoreChart"), {
    type: "line",
    data: { labels: data.labels, datasets: [{ label: "分數", data: data.values }] },
  });
</script>
```

**這樣做的好處**

- 只有一個專案、一種語言（Python），部署簡單。
- 之後如果有人接手，只要會 Django 就看得懂。
- 頁面速度快，手機上也順。

總之先把「家長登入 → 看到孩子的出缺席和成績」這條路做完整，再慢慢加功能。
""", "htmx"),
]),
("2025-06-03 20:30", [
U("家長幾乎都用 LINE，希望孩子缺席的時候可以自動傳訊息通知家長。", "line"),
A(r"""
用 LINE 通知家長非常實用，但有一件事要先知道：很多舊教學用的 **LINE Notify 已經在 2025 年 3 月 31 日停止服務**，現在要改用 **LINE 官方帳號搭配 Messaging API**。

**整體流程**

1. 申請一個 LINE 官方帳號（補習班的名稱），在 LINE Developers 後台開啟 Messaging API，拿到 Channel access token 和 Channel secret。
2. 家長加入官方帳號好友。
3. 家長在網站登入後，點「綁定 LINE」，把 LINE 的 userId 和家長帳號對應起來。
4. 老師點名存檔時，如果有學生被標成「缺席」，系統就推播訊息給綁定的家長。

**綁定 LINE**

比較簡單的做法是用 **LINE Login**：家長在網站上按按鈕，用 LINE 登入授權後，你就可以拿到他的 userId，存到 `Guardian` 上：

```python
class Guardian(models.Model):
    # ...原本的欄位
    line_user_id = models.CharField(max_length=64, blank=True)
```

注意 LINE Login 的 channel 和 Messaging API 的 channel 要在同一個 provider 底下，拿到的 userId 才會一樣。

**點名後發送通知**

用 Django 的 signal 或直接在存檔後處理：

```python
import requests
from django.conf import settings

LINE_PUSH_URL = "https://api.line.me/v2/bot/message/push"


def notify_absence(attendance):
    text = (f"{attendance.student.name} 今天（{attendance.date:%m/%d}）"
            f"{attendance.group.name} 未到課，如有請假請回覆或來電，謝謝。")
    for g in attendance.student.guardian_set.exclude(line_user_id=""):
        requests.post(
            LINE_PUSH_URL,
            headers={"Authorization": f"Bearer {settings.LINE_CHANNEL_TOKEN}"},
            json={"to": g.line_user_id, "messages": [{"type": "text", "text": text}]},
            timeout=10,
        )
```

token 要放在環境變數，不要寫在程式碼裡。

**費用要注意**

LINE 官方帳號在台灣的免費方案（輕用量）每個月只有少量免費訊息（目前是 200 則左右），超過要升級付費方案。以 150 位學生來算，缺席通知一個月大概幾十則，通常夠用；但如果之後想每週傳成績給所有家長，就會超過免費額度，要先估算。

**幾個細節**

- 同一天同一個學生只通知一次，避免老師改了兩次狀態就傳兩次。可以在 `Attendance` 加一個 `notified_at` 欄位記錄。
- 「請假」不要通知，只有「缺席」才通知。
- 訊息內容不要放成績等敏感資訊。
- 點名後延遲十到十五分鐘再發，給老師更正的時間，可以用排程每十分鐘檢查一次。
""", "line_reply"),
U("好消息，老闆同意買一台新的雲端主機，可以用 Python 3.12 了，主機預算一個月一千塊以內。",
  "py312"),
A(r"""
太好了，這讓整個專案輕鬆很多。能用 Python 3.12 之後，Django 版本也可以跟著升級，主機部分一個月一千元以內也很夠用。

**Django 版本：升到 5.2 LTS**

Django 5.2 是 2025 年 4 月推出的長期支援版，支援 Python 3.10 到 3.13，安全性更新到 2028 年 4 月。從 4.2 升到 5.2 對你們這種規模的專案來說通常很順：

1. 先在 4.2 上把所有 deprecation warning 清掉：`python -Wd manage.py test`。
2. 改 `requirements.txt`：`Django>=5.2,<6.0`。
3. 跑 `python manage.py migrate` 和測試。
4. 型別標註也可以改回新寫法，例如 `list[int] | None`。

**主機選擇（每月 1,000 元以內）**

| 選項 | 約略月費 | 說明 |
|---|---|---|
| 國外 VPS（1 vCPU / 1–2 GB） | 約 200–400 元 | 例如 Linode、Vultr、DigitalOcean，有東京或新加坡機房 |
| GCP / AWS 小型機器 | 約 300–600 元 | 有台灣或東京機房，但計費比較複雜 |
| PaaS 平台 | 約 300–700 元 | 部署最簡單，不用自己管作業系統 |

以你們不太想處理複雜東西的偏好，**PaaS 或 1–2 GB 的 VPS** 都合適。VPS 比較便宜，但要自己做更新和安全設定。

**VPS 的標準部署方式**

- Ubuntu 24.04 LTS（內建 Python 3.12）。
- **Gunicorn** 執行 Django，前面用 **Nginx** 處理 HTTPS 和靜態檔。
- HTTPS 憑證用 **Let's Encrypt**（certbot 自動更新，免費）。
- 資料庫：學生資料量小，可以繼續用 SQLite；如果想更穩，可以在同一台裝 PostgreSQL。
- 用 systemd 管理 gunicorn，伺服器重開機會自動啟動。

**備份一定要做**

成績和出缺席是不能遺失的資料：

- 每天凌晨用 cron 備份資料庫（SQLite 用 `sqlite3 db.sqlite3 ".backup backup.db"`，PostgreSQL 用 `pg_dump`）。
- 備份檔再複製到另一個地方，例如 Google Drive 或物件儲存，保留 30 天。
- 每學期至少試著還原一次，確認備份真的能用。

**安全設定**

- 關閉密碼登入 SSH，只用金鑰。
- 開防火牆，只開 22、80、443。
- `DEBUG = False`，`SECRET_KEY` 和 LINE token 放環境變數。
- 開啟自動安全更新（unattended-upgrades）。

算起來主機加網域，一個月大概三、四百元就夠，在一千元預算內還有空間。
""", "upgrade"),
U("上線時間本來想說九月開學，現在要提早到 8 月 15 日，因為暑期班要先開始用。", "aug15"),
A(r"""
8 月 15 日上線的話，從現在算起大約十週。時間夠，但要把範圍控制好：暑期班需要的是「點名、缺席通知、家長看出缺席」，成績功能可以晚一點。

**時程規劃**

| 週次 | 日期 | 工作內容 |
|---|---|---|
| 1–2 | 6/9 – 6/22 | 新主機建好、升級 Django 5.2、部署流程跑通（先放測試網址） |
| 3–4 | 6/23 – 7/6 | 老師點名頁完成；把學生名單從 Excel 匯入 |
| 5 | 7/7 – 7/13 | 家長登入、看出缺席頁面 |
| 6 | 7/14 – 7/20 | LINE 官方帳號、綁定流程、缺席通知 |
| 7 | 7/21 – 7/27 | 三位老師試用一週，收集問題 |
| 8 | 7/28 – 8/3 | 修正問題、寫一頁「家長使用說明」 |
| 9 | 8/4 – 8/10 | 邀請少數家長先試用綁定 LINE |
| 10 | 8/11 – 8/15 | 正式上線，發通知給所有暑期班家長 |

成績功能排在九月開學前完成就好。

**學生名單匯入**

你們現在應該有 Excel 名單，寫一個 Django management command 匯入，比一筆一筆輸入快很多：

```python
# school/management/commands/import_students.py
import openpyxl
from django.core.management.base import BaseCommand
from school.models import ClassGroup, Student


class Command(BaseCommand):
    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, path, **kwargs):
        wb = openpyxl.load_workbook(path)
        for name, school, group_name in wb.active.iter_rows(min_row=2, values_only=True):
            group, _ = ClassGroup.objects.get_or_create(name=group_name)
            student, _ = Student.objects.get_or_create(name=name, defaults={"school": school or ""})
            student.groups.add(group)
        self.stdout.write("匯入完成")
```

執行：`python manage.py import_students 暑期班名單.xlsx`。

**老師試用週很重要**

三位老師都要實際用點名功能至少一週。常見問題是：按鈕在手機上太小、班級太多找不到、忘記存檔。這些在上線前修掉，家長那邊就會順很多。

**上線當天**

- 在補習班門口或教室貼 QR code，家長掃了就能加入官方帳號、登入網站。
- 準備一個簡單的常見問題：忘記密碼怎麼辦、兩個孩子怎麼看。
- 上線後第一週，每天看一次錯誤紀錄。

**風險**

最可能延誤的是 LINE 綁定流程，因為牽涉到 LINE 後台設定和審核。如果到 7 月底還沒完成，就先上線網站，缺席通知晚一兩週再開，不影響暑期班使用。
""", "schedule"),
]),
], [
("補習班網站的新主機可以用哪個 Python 版本？", ["py312"], "update"),
("最早學校借的那台伺服器，Python 是哪一版？", ["py38"], "temporal"),
("我們補習班有多少學生、幾位老師？", ["size"], "user-fact"),
("家長最想在網站上看到哪些資訊？", ["size"], "user-fact"),
("我對網站架構的做法有什麼偏好？", ["simple"], "preference"),
("What messaging app do most of the parents use?", ["line"], "user-fact", "en"),
("主機每個月的預算上限是多少？", ["py312"], "user-fact"),
("網站現在預計什麼時候上線？", ["aug15"], "update"),
("你一開始建議我用哪一版 Django，為什麼？", ["django42"], "reply-fact"),
("你說舊的 LINE 通知服務怎麼了？建議改用什麼？", ["line_reply"], "reply-fact"),
("不寫前端框架的話，你建議用什麼做頁面上的小互動？", ["htmx"], "reply-fact"),
("主機升級之後，你建議 Django 換成哪個版本？", ["upgrade"], "reply-fact"),
("Python 版本的限制前後有什麼變化？你的 Django 版本建議也跟著怎麼改？",
 ["py38", "django42", "py312", "upgrade"], "multi"),
("為了趕上線，你說哪個功能可以晚一點再做？", ["schedule"], "reply-fact"),
("家長都用 LINE，你建議的通知方式每個月會不會有費用？", ["line", "line_reply"], "multi"),
]))

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-14", "林柏宇", "zh", [
("2025-06-22 22:00", [
U("十月想帶爸媽去京都大阪自助旅行七天，我媽膝蓋不好，一天走不了太多路。", "knee"),
A(r"""
帶長輩去京都大阪很適合，交通方便、景點集中，但京都很多景點其實很需要走路（坡道、石階、大寺院的範圍都很大），所以行程要以「每天一到兩個重點、搭配計程車」來安排。

**規劃原則**

- **每天最多兩個主要景點**，中間安排坐下來休息的地方（咖啡店、午餐）。
- **多用計程車**：京都市區計程車起跳約 500 日圓，三個人一起搭，短程常常比公車還方便，也不用在公車上站著。
- **避開階梯多的地方**：例如伏見稻荷的千本鳥居只走入口那一段就好，清水寺的坡道（二年坂、三年坂）很累，可以搭計程車到比較上面的位置。
- **早一點出門**：十月的京都人很多，早上九點前到景點比較輕鬆。

**七天行程草案**

| 天 | 內容 |
|---|---|
| 第 1 天 | 抵達關西機場，搭 HARUKA 到京都，入住、附近散步 |
| 第 2 天 | 嵐山：搭計程車到竹林附近，坐嵐山小火車或人力車，午餐湯豆腐 |
| 第 3 天 | 金閣寺（路面平坦）＋ 下午錦市場附近逛逛 |
| 第 4 天 | 清水寺（搭車上去）＋ 祇園、花見小路慢慢走 |
| 第 5 天 | 奈良：近鐵到奈良，公園平坦好走，看鹿、東大寺 |
| 第 6 天 | 大阪一日：大阪城（有電梯）、黑門市場、心齋橋 |
| 第 7 天 | 早上休息、買伴手禮，回程 |

**讓媽媽比較輕鬆的小東西**

- **折疊拐杖或登山杖**：在石階和坡道很有幫助。
- **好走的鞋**，出發前先穿習慣。
- 日本車站大多有電梯，可以用 Google Maps 或車站內的電梯標示找。
- 京都很多寺院有**長椅休息區**，參觀時間抓寬一點。

**交通卡**

每個人一張 ICOCA（或用手機的交通卡），搭電車、公車、便利商店都能用，不用一直買票。

**餐廳**

熱門餐廳建議先訂位，避免在門口排隊站太久；很多餐廳可以用 Tabelog 或 Google 訂。

**十月的天氣和穿著**

京都十月白天大約 20–25 度，早晚會降到 13–15 度左右，溫差大。建議洋蔥式穿法：短袖或薄長袖，加一件薄外套，媽媽可以多帶一件保暖的背心。十月偶爾還會有颱風，出發前一週記得看天氣預報，行程保留彈性。

**旅遊保險**

長輩出國一定要保旅遊平安險和海外醫療，最好包含「海外突發疾病」。日本看病很貴，外國人沒有健保，一次門診可能就要上萬日圓。媽媽平常吃的藥要帶足天數再多帶幾天，放在隨身行李裡，並準備一張寫著藥名的英文或日文說明。

接下來想知道：爸媽在吃的方面有沒有什麼限制？住宿你比較想住京都還是大阪，或是兩邊分開住？
""", "itin7"),
U("我爸吃素，是鍋邊素，蛋奶可以，但肉和海鮮都不吃。", "veg"),
A(r"""
在日本吃素比在台灣難一點，最大的問題是**高湯**：很多看起來是蔬菜的料理，湯底其實是柴魚或小魚乾熬的（出汁、だし）。不過鍋邊素、可以吃蛋奶的話，選擇其實不少，京都更是日本吃素最方便的城市之一。

**京都的好選擇**

- **精進料理**：寺院的素食料理，完全不用肉和魚，連高湯都是昆布和香菇。嵐山天龍寺裡的「篩月」就很有名，可以配合嵐山那天的行程去吃，記得事先預約。
- **湯豆腐**：嵐山和南禪寺附近很多湯豆腐店，但要問清楚沾醬有沒有用柴魚，可以請店家用昆布醬油。
- **素食或蔬食餐廳**：京都市區有不少標示 vegetarian / vegan 的店，用 Google Maps 搜尋「vegetarian」或看 HappyCow 評價。
- **豆腐、湯葉（豆皮）料理**：京都的特色，大多是素的，但同樣要確認醬汁。

**大阪和奈良**

- 大阪有一些素食拉麵、素食咖哩店，事先查好地點，排在行程附近。
- 奈良公園附近也有精進料理和蔬食咖啡廳。

**點餐時可以用的一句話**

把這句日文存在手機裡或印成小卡，點餐時給店員看：

> 肉、魚、魚介類、だし（かつお節・煮干し）が食べられません。卵と乳製品は大丈夫です。

意思是「不能吃肉、魚、海鮮和柴魚/小魚乾高湯，蛋和奶製品可以」。鍋邊素的話，可以再加一句「肉や魚を取り除けば大丈夫です」（把肉和魚挑掉也可以）。

**便利商店和超市**

- 飯糰選梅子、昆布（要看有沒有柴魚）、鮭魚不行。
- 超市的豆腐、納豆（醬包通常有柴魚）、水果、麵包、優格都很方便。
- 早餐如果飯店有自助餐，蛋、麵包、沙拉、水果就很夠了。

**行程上的安排**

建議每天中午先確定一家可以吃的餐廳，晚餐可以彈性一點。十月是旅遊旺季，素食餐廳座位不多，熱門的店至少提前一兩週訂位。

**媽媽和你自己**

如果你和媽媽不吃素，選餐廳時可以找「有素食選項」的店，例如蕎麥麵店（問清楚醬汁）、義大利餐廳、印度咖哩店，大家都能吃。

**訂位時怎麼說**

很多京都的餐廳可以在網路上訂位，備註欄可以寫英文：「One guest is vegetarian (no meat, no fish, no fish-based dashi; eggs and dairy are OK).」精進料理的店通常不用特別說明，但湯豆腐、懷石料理的店最好事先告知，有些店需要三天前通知才能準備素食套餐。如果店家回覆無法配合，就換一家，不要到了現場才問，長輩等待的時間會很辛苦。
""", "veg_reply"),
U("我不喜歡一直換飯店，拖行李很累，最好整趟住同一間。", "onehotel"),
A(r"""
住同一間飯店對帶長輩的行程非常好：不用每兩三天就整理行李、拖著行李箱上下樓梯和電車，媽媽的膝蓋也會輕鬆很多。重點是選一個交通方便的位置，讓京都、大阪、奈良都能當天來回。

**建議住京都車站附近**

以你們的行程來看，大部分時間在京都，所以我建議整趟住**京都車站周邊**：

- 到嵐山：JR 嵯峨野線約 15 分鐘，或計程車約 30 分鐘。
- 到奈良：近鐵特急約 35 分鐘。
- 到大阪：JR 新快速到大阪（梅田）約 30 分鐘。
- 回關西機場：HARUKA 直達約 75 分鐘，最後一天不用轉車。
- 車站本身有百貨公司、餐廳、超市，晚上不想出門也能解決晚餐。

另一個選項是住大阪梅田，但你們京都的天數比較多，每天來回京都會比較累。

**選飯店時要注意**

- **房型**：三個人一間的話，日本的三人房不多，可以找「和洋室」或 triple room；或訂兩間房（爸媽一間、你一間），空間比較舒服。
- **離車站的距離**：步行 5 分鐘以內最理想，最好不用過天橋或走很多樓梯。
- **電梯和無障礙**：確認飯店有電梯，浴室有扶手更好。
- **大浴場**：有些飯店有大浴場，走一天路之後泡個澡，長輩通常很喜歡。

**行李的小技巧**

- 到達那天如果太早到，可以先把行李寄放在飯店櫃檯。
- 回程如果伴手禮太多，可以用飯店或車站的宅配，把行李寄到機場（大多在出發前一天寄）。
- 出門的時候只背一個輕便的包，放水、外套、藥品和折疊拐杖。

**訂房時間**

十月是京都的旺季，加上楓葉季前後的觀光人潮，京都車站附近的飯店通常很早就被訂走。建議這一兩週內就先訂「可免費取消」的方案，之後行程有變動再調整。

**每天的節奏**

住同一間飯店還有一個好處：可以中午回飯店休息一下再出門。對膝蓋不好的媽媽來說，下午休息一兩個小時，晚上再去吃飯，比一整天在外面走輕鬆很多。

**飯店候選條件清單**

整理一下訂房時可以逐項確認的條件：

1. 京都車站步行五分鐘內，最好是八條口（南側）或烏丸口（北側）出口附近，不用過大馬路。
2. 有電梯、房間在比較低的樓層也可以。
3. 三人房或兩間相鄰的房間。
4. 有大浴場或浴缸，浴室有扶手。
5. 可以免費取消，並且可以寄放行李。

符合這些條件的飯店，在十月通常一晚三個人大約兩萬到三萬日圓，越早訂選擇越多。

如果找不到三人房，訂兩間相鄰的雙人房也很好：爸媽可以早點休息，你晚上也能自己出去走走或整理隔天的行程。
""", "base"),
]),
("2025-07-20 21:30", [
U("我們決定把行程延長成九天，10 月 18 日出發。", "nine"),
A(r"""
九天的行程可以放慢腳步，對媽媽的膝蓋更友善：每天的景點可以少一點，中間也能安排一天完全休息。繼續以京都車站附近的飯店為據點，多出來的兩天我建議加上宇治和一天自由休息。

**九天行程（10/18 出發）**

| 日期 | 內容 |
|---|---|
| 10/18（六） | 抵達關西機場，HARUKA 到京都，入住、京都車站附近晚餐 |
| 10/19（日） | 嵐山：計程車到竹林附近，天龍寺、中午精進料理，嵐山小火車 |
| 10/20（一） | 金閣寺＋ 下午回飯店休息，晚上逛京都車站的百貨 |
| 10/21（二） | 宇治：JR 約 20 分鐘，平等院（平坦好走），抹茶甜點 |
| 10/22（三） | **休息日**：睡晚一點、附近散步、飯店大浴場 |
| 10/23（四） | 清水寺（搭計程車到上面）＋ 祇園、花見小路 |
| 10/24（五） | 奈良：奈良公園、東大寺，午餐吃蔬食 |
| 10/25（六） | 大阪：大阪城（有電梯）、心齋橋，晚上回京都 |
| 10/26（日） | 買伴手禮、HARUKA 到機場回台灣 |

週末京都的人潮特別多，所以把嵐山排在第一個週日有點擠，也可以跟金閣寺那天對調，排在週一。

**新增的兩個地方**

- **宇治**：平等院和宇治川沿岸都很平坦，距離京都很近。這裡是抹茶的故鄉，抹茶甜點和茶屋很多，大部分是素的，爸爸也可以放心吃。
- **休息日**：九天的旅行中間一定要有一天不排行程。長輩通常在第四、五天最累，休息一天之後後面的行程會走得比較好。

**交通**

- 宇治、奈良、大阪都是從京都車站當天來回，不用換飯店。
- 每天回到飯店的時間盡量在傍晚以前，晚餐在車站附近解決。

**飯店訂房**

延長成九天的話，記得把飯店改成 8 晚（10/18 – 10/26）。同一間飯店連住 8 晚有些會有連住優惠，可以直接問飯店。

**機票**

10/18 是星期六，去程機票會比平日貴一點。如果價差很大，也可以考慮 10/17 週五晚上出發，但要多付一晚住宿，算一算哪個比較划算。

**每天的步行量**

這份行程的設計是每天步行大約四千到六千步，比一般自由行少一半左右。比較累的是清水寺和奈良那兩天，所以它們前一天都不要排太滿。媽媽如果走到一半覺得膝蓋不舒服，就直接叫計程車回飯店，不要勉強把景點走完。可以在手機裡裝日本的叫車 App（例如 GO），在京都叫車很方便，也可以直接用信用卡付款。
""", "itin9"),
U("預算的話，大概每個人五萬台幣，包含機票。", "budget"),
A(r"""
每人五萬台幣、九天八夜、含機票，在十月的京都是可以做到的，但要控制住宿和交通的花費。以目前的匯率（大約 1 日圓 = 0.21 台幣左右，出發前再確認）粗估如下。

**每人預算分配**

| 項目 | 每人約略金額（台幣） | 說明 |
|---|---|---|
| 機票（桃園－關西來回） | 12,000 – 16,000 | 十月是旺季，越早訂越便宜；廉航加行李也差不多這個價錢 |
| 住宿 8 晚 | 16,000 – 20,000 | 京都車站附近，三人房或兩間房平均下來 |
| 交通 | 3,500 – 4,500 | HARUKA 來回、ICOCA 儲值、計程車 |
| 餐費 | 9,000 – 11,000 | 一天約 1,100 – 1,400 元 |
| 門票、體驗 | 1,500 – 2,000 | 寺院門票、嵐山小火車、精進料理 |
| 保險、網路 | 800 – 1,000 | 旅遊平安險、eSIM |
| **合計** | **約 43,000 – 54,000** | |

可以看到住宿和機票是最大的兩塊，所以：

**省錢的重點**

1. **機票現在就訂**：十月的關西航線常常客滿，越晚越貴。
2. **住宿先訂可取消的方案**，之後看到更便宜的再換。
3. **不要買 JR Pass**：全國版 JR Pass 漲價之後，對只在關西活動的行程完全不划算。你們大部分是京都市區加上宇治、奈良、大阪的當天來回，用 **ICOCA 儲值**最划算。HARUKA 可以事先在網路上買外國旅客的優惠票（ICOCA & HARUKA 套票）。
4. **計程車要算進去**：媽媽膝蓋不好，計程車是必要支出，三個人分攤其實不貴，每人每天抓 300–500 台幣。
5. **早餐**：如果飯店早餐很貴，可以不含早餐，改在便利商店或麵包店買，一個人一天可以省 300–500 元。

**要保留的花費**

- 天龍寺的精進料理：對吃素的爸爸來說是這趟旅行的亮點，值得。
- 休息日的大浴場或溫泉：讓長輩放鬆很重要。

**付款方式**

日本現在大多可以刷卡或用手機支付，但小餐廳、寺院有時只收現金，每人準備 2 – 3 萬日圓現金就夠，其他用刷卡。

**匯率和退稅**

- 換日圓可以分兩三次換，避免一次換在匯率不好的時候；也可以用海外消費回饋比較高的信用卡。
- 在日本買藥妝、伴手禮時，同一家店當天消費滿 5,000 日圓（未稅）可以辦免稅，要帶護照。
- 最後一天在機場或京都車站買伴手禮，要留意行李重量，廉航的行李限制比較嚴格。

整體來看，每人五萬的預算是「舒服但不奢侈」的等級；如果想住更好的飯店或多吃幾次懷石料理，就要再往上加一點。
""", "budget_reply"),
U("我媽最近說她很想去看楓葉，可是我印象中十月下旬的京都楓葉好像還沒紅？", "momiji"),
A(r"""
你的印象是對的。京都市區的楓葉通常在**十一月中旬到十二月初**最紅，十月下旬大部分地方還是綠的，頂多樹梢開始轉黃。所以如果看楓葉是媽媽很想做的事，有兩個方向可以考慮。

**方案一：行程不變，去山上比較早紅的地方**

海拔越高，楓葉越早紅。十月下旬有機會看到初紅的地方：

- **比叡山**：海拔約 800 公尺，十月下旬到十一月上旬開始變色。可以搭纜車和空中纜車上去，不需要爬山，對膝蓋友善。
- **貴船、鞍馬**：比市區早一點，但鞍馬寺的步道很多階梯，建議只去貴船，搭叡山電車，沿著貴船川邊走一小段就好。叡山電車的「楓葉隧道」區段在十一月才比較紅。
- **更遠的地方**：像立山黑部、上高地這些地方十月很漂亮，但交通時間長、也要走路，不太適合這次的行程。

這個方案的缺點是：看到的比較像「初紅」，不是滿山通紅。

**方案二：把出發日期延後到十一月中下旬**

如果媽媽真的很想看楓葉，延後到**11 月 15 日到 25 日左右**出發，京都市區（嵐山、東福寺、永觀堂、清水寺）都會在最美的時候。但要注意：

- 楓葉季是京都一年中人最多的時候，熱門景點會非常擠，對行動不便的長輩比較辛苦。
- 飯店價格會比十月貴很多，可能要多 30% – 50%，超過每人五萬的預算。
- 機票也比較貴。
- 你們目前訂的十月飯店，如果是可免費取消的方案，現在改還來得及。

**我的建議**

以預算和媽媽的膝蓋來考慮，我會建議**維持十月出發**，在行程裡加一天比叡山（可以排在原本的休息日之後），讓媽媽看到初紅的楓葉，也看看琵琶湖的景色。京都的寺院在十月也有很多秋天的花和景色，人潮比十一月少很多，走起來輕鬆。

如果媽媽心裡想的是「滿山紅葉」的畫面，那就要認真考慮改到十一月，並且把預算往上調。可以先問問她比較在意的是哪一種。

**如果維持十月，比叡山那天怎麼走**

從京都車站搭京阪電車到出町柳，轉叡山電車到八瀨比叡山口，再搭纜車和空中纜車到山頂，單程大約一個半小時，全程幾乎不用走樓梯。也可以從京都車站搭直達比叡山的巴士，坐著就能到山上，對媽媽最輕鬆。山上比市區冷五到八度，記得帶外套。延曆寺的範圍很大，只參觀根本中堂附近就好，其餘時間在山頂的展望台喝杯咖啡、看看琵琶湖，就是很舒服的一天。

**另一個折衷：兩段式的秋天**

如果這次維持十月，媽媽又真的很想看滿山紅葉，也可以把楓葉留給下一次：例如明年十一月再安排一趟短一點的京都行程，只住三四晚，專門看東福寺、永觀堂這幾個楓葉名所。這樣這次的行程可以輕鬆一點，不用為了楓葉趕路。
""", "momiji_reply"),
]),
], [
("這趟日本旅行要帶誰去？誰的身體狀況要特別注意？", ["knee"], "user-fact"),
("我爸吃東西有什麼限制？", ["veg"], "user-fact"),
("住宿方面我有什麼偏好？", ["onehotel"], "preference"),
("這趟旅行現在總共幾天？哪天出發？", ["nine"], "update"),
("How long is the Japan trip now, and when do we leave?", ["nine"], "update", "en"),
("每個人的旅費預算是多少？", ["budget"], "user-fact"),
("我媽這次最想看什麼？", ["momiji"], "preference"),
("你建議我們整趟住在哪一區？", ["base"], "reply-fact"),
("你推薦在嵐山吃素可以去哪裡？", ["veg_reply"], "reply-fact"),
("交通方面你覺得要不要買 JR Pass？", ["budget_reply"], "reply-fact"),
("你說京都市區的楓葉大概什麼時候最紅？", ["momiji_reply"], "reply-fact"),
("行程延長之後，你多安排了哪些地方？原本是幾天？", ["knee", "itin9"], "multi"),
("我一開始打算去日本玩幾天？", ["knee"], "temporal"),
("我爸吃素，你在嵐山那天的行程裡怎麼安排他的午餐？", ["veg", "veg_reply", "itin9"], "multi"),
]))

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-15", "王振宇 Jason", "zh", [
("2025-04-14 12:30", [
U("我是行銷專員，不是工程師。每個月業務會給我大概 20 個 Excel 檔（每家分店一個），我想用 "
  "Python pandas 合併起來做報表。公司電腦是 Windows。", "role"),
A(r"""
這個需求很適合用 pandas 來做，而且不需要是工程師：一旦寫好，每個月只要把檔案放進資料夾、按一下執行，就能得到合併好的資料。以下是在 Windows 上最簡單的做法。

**安裝環境**

最省事的方式是安裝 **Anaconda**（或比較輕量的 Miniconda），它會一次裝好 Python、pandas 和 Jupyter Notebook。如果公司電腦需要 IT 權限才能安裝軟體，可以先問 IT；有些公司也接受從 Microsoft Store 安裝 Python。

另外還需要讀寫 Excel 的套件：

```
pip install pandas openpyxl xlsxwriter
```

**資料夾結構**

```
C:\報表\
    原始資料\2025-04\   ← 每個月把 20 個分店 Excel 放這裡
    輸出\
    合併報表.ipynb
```

**合併 20 個 Excel 檔**

```python
from pathlib import Path
import pandas as pd

folder = Path(r"C:\報表\原始資料\2025-04")
frames = []
for f in sorted(folder.glob("*.xlsx")):
    if f.name.startswith("~$"):          # 跳過 Excel 開著時產生的暫存檔
        continue
    df = pd.read_excel(f, sheet_name=0)
    df["來源檔案"] = f.stem              # 記下是哪個分店的檔案
    frames.append(df)

data = pd.concat(frames, ignore_index=True)
print(len(frames), "個檔案，共", len(data), "筆資料")
data.head()
```

幾個重點：

- 路徑前面的 `r` 讓 Windows 的反斜線 `\` 不會出錯。
- `~$` 開頭的檔案是 Excel 開著時的暫存檔，一定要跳過，不然會讀取失敗。
- 加一欄「來源檔案」，之後對不起來時可以追查是哪家分店。

**先檢查資料**

合併完先看看：

```python
data.info()            # 每一欄的型態和缺值數
data.columns.tolist()  # 欄位名稱是否一致
```

最常見的問題是：不同分店的 Excel 欄位名稱不一樣（例如「銷售額」和「營業額」）、有合併儲存格、或表頭不在第一列。這些都可以用程式處理，不用每個月手動修。

**建議用 Jupyter**

Jupyter Notebook 可以一格一格執行，馬上看到結果，對非工程師來說很友善。從開始選單打開「Jupyter Notebook」，瀏覽器會開啟，選擇你的資料夾就可以開始。

可以貼一下其中一個分店 Excel 的欄位（前幾列就好），我幫你寫整理資料的部分。
""", "merge"),
U("欄位名稱我想保留中文，像「門市」「銷售額」「月份」，主管看得懂比較重要。", "zhcols"),
A(r"""
保留中文欄位完全沒問題，pandas 對中文欄位名稱的支援很好，最後輸出到 Excel 也會是中文，主管看起來最直覺。需要注意的是，各分店的 Excel 常常寫法不一致，所以要先統一欄位名稱。

**統一欄位名稱**

用一個對照表，把各種寫法都對應到你要的標準名稱：

```python
rename_map = {
    "門市名稱": "門市",
    "店名": "門市",
    "分店": "門市",
    "營業額": "銷售額",
    "銷售金額": "銷售額",
    "金額": "銷售額",
    "月": "月份",
    "日期": "月份",
}

frames = []
for f in sorted(folder.glob("*.xlsx")):
    if f.name.startswith("~$"):
        continue
    df = pd.read_excel(f)
    df.columns = df.columns.str.strip()      # 去掉欄位名稱前後的空白
    df = df.rename(columns=rename_map)
    missing = {"門市", "銷售額", "月份"} - set(df.columns)
    if missing:
        print(f"{f.name} 缺少欄位：{missing}")
        continue
    frames.append(df[["門市", "月份", "銷售額"]])

data = pd.concat(frames, ignore_index=True)
```

欄位名稱前後多一個空白，是最常讓人找不到欄位的原因，所以 `str.strip()` 一定要加。遇到新的寫法，只要把它加進 `rename_map` 就好。

**數字欄位的清理**

業務填的銷售額有時候會是文字，例如「12,300」或「12300 元」：

```python
data["銷售額"] = (
    data["銷售額"].astype(str)
    .str.replace(",", "", regex=False)
    .str.replace("元", "", regex=False)
    .str.strip()
)
data["銷售額"] = pd.to_numeric(data["銷售額"], errors="coerce")
print("無法轉換的筆數：", data["銷售額"].isna().sum())
```

`errors="coerce"` 會把轉不過去的值變成空值，再印出筆數，方便你回頭找業務確認。

**做成主管要看的樞紐表**

```python
summary = data.pivot_table(
    index="門市", columns="月份", values="銷售額", aggfunc="sum", fill_value=0
)
summary["合計"] = summary.sum(axis=1)
summary = summary.sort_values("合計", ascending=False)
```

這樣就是「每家門市 × 每個月份」的銷售額，依照合計排序。

**在程式裡用中文欄位的小提醒**

- 用 `df["銷售額"]` 的寫法，不要用 `df.銷售額`，雖然也能用，但遇到有空白或特殊符號的欄位就會出錯。
- 存成 CSV 給別人用 Excel 打開時，要用 `encoding="utf-8-sig"`，不然中文會變亂碼：`data.to_csv("合併.csv", index=False, encoding="utf-8-sig")`。
""", "cols"),
U("最後要交給主管的是一個 Excel 檔，裡面最好有圖表，他不會開 Python，也不想看程式。",
  "excel_out"),
A(r"""
可以直接用 Python 產生一個「已經排好版、有圖表」的 Excel 檔，主管打開就能看，完全不用碰 Python。建議用 **XlsxWriter** 套件，它可以在 Excel 裡建立真正的 Excel 圖表（主管還可以自己點圖表修改）。

**輸出有格式的 Excel 加圖表**

```python
out = Path(r"C:\報表\輸出\門市銷售報表_2025-04.xlsx")

with pd.ExcelWriter(out, engine="xlsxwriter") as writer:
    summary.to_excel(writer, sheet_name="門市彙總")
    data.to_excel(writer, sheet_name="明細", index=False)

    wb = writer.book
    ws = writer.sheets["門市彙總"]

    money = wb.add_format({"num_format": "#,##0"})
    header = wb.add_format({"bold": True, "bg_color": "#DDEBF7", "border": 1})

    ws.set_column(0, 0, 14)                        # 門市欄寬
    ws.set_column(1, len(summary.columns), 12, money)
    ws.freeze_panes(1, 1)                          # 凍結第一列和第一欄
    for col, name in enumerate(["門市"] + list(summary.columns)):
        ws.write(0, col, str(name), header)

    # 長條圖：各門市合計
    n = len(summary)
    total_col = len(summary.columns)               # 「合計」所在的欄
    chart = wb.add_chart({"type": "bar"})
    chart.add_series({
        "name": "合計銷售額",
        "categories": ["門市彙總", 1, 0, n, 0],
        "values": ["門市彙總", 1, total_col, n, total_col],
    })
    chart.set_title({"name": "各門市銷售額"})
    chart.set_legend({"none": True})
    chart.set_size({"width": 720, "height": 480})
    ws.insert_chart(1, total_col + 2, chart)
```

**這樣產生的檔案會有**

- 「門市彙總」工作表：數字有千分位、標題有底色、凍結窗格，右邊有長條圖。
- 「明細」工作表：合併後的原始資料，主管想追查時可以自己篩選。

**再加一個趨勢圖**

如果主管想看整體每個月的趨勢，可以再加一個折線圖：

```python
    monthly = data.groupby("月份")["銷售額"].sum()
    monthly.to_excel(writer, sheet_name="月趨勢")
    ws2 = writer.sheets["月趨勢"]
    line = wb.add_chart({"type": "line"})
    line.add_series({
        "name": "總銷售額",
        "categories": ["月趨勢", 1, 0, len(monthly), 0],
        "values": ["月趨勢", 1, 1, len(monthly), 1],
    })
    ws2.insert_chart("D2", line)
```

**中文字型**

Excel 圖表預設字型在中文環境通常沒問題。如果主管的電腦顯示怪怪的，可以在 `set_title` 加上 `"name_font": {"name": "微軟正黑體"}`。

**注意**

產生檔案前，要先關掉同名的 Excel 檔，否則 Windows 會鎖住檔案而寫入失敗（錯誤訊息是 PermissionError）。
""", "xlsx"),
]),
("2025-05-19 09:15", [
U("主管說報表改成每週一早上九點前要給他，不是每個月做一次了。", "weekly"),
A(r"""
改成每週一次的話，最好讓報表**自動產生**，不然每週一早上都要趕。做法是把 Notebook 裡的程式整理成一個 `.py` 檔，再用 Windows 內建的**工作排程器（Task Scheduler）**在每週一早上八點自動執行。

**資料改成以「週」為單位**

如果業務的資料有日期欄位，可以用 ISO 週次來分組：

```python
data["日期"] = pd.to_datetime(data["日期"], errors="coerce")
iso = data["日期"].dt.isocalendar()
data["週次"] = iso["year"].astype(str) + "-W" + iso["week"].astype(str).str.zfill(2)

last_week = (pd.Timestamp.today() - pd.Timedelta(days=7)).isocalendar()
target = f"{last_week.year}-W{last_week.week:02d}"
week_data = data[data["週次"] == target]
```

週一早上產生的是「上一週」的報表，所以用今天往前推七天來算週次。

**整理成可以自動執行的程式**

把 Notebook 中確定好的步驟放進 `weekly_report.py`，並且把結果寫進 log，出問題時才知道原因：

```python
import logging
from pathlib import Path

logging.basicConfig(filename=r"C:\報表\輸出\report.log", level=logging.INFO,
                    format="%(asctime)s %(levelname)s %(message)s", encoding="utf-8")

def main():
    data = load_all()                 # 讀檔、統一欄位、清理數字
    report = build_summary(data)      # 樞紐表
    path = write_excel(report, data)  # 輸出含圖表的 Excel
    logging.info("報表完成：%s", path)

if __name__ == "__main__":
    try:
        main()
    except Exception:
        logging.exception("報表失敗")
        raise
```

**設定工作排程器**

1. 開始選單搜尋「工作排程器」→「建立基本工作」。
2. 觸發程序：每週，星期一，**上午 8:00**。
3. 動作：啟動程式。
   - 程式：Anaconda 的 python 路徑，例如 `C:\Users\你的帳號\anaconda3\python.exe`
   - 引數：`weekly_report.py`
   - 開始位置：`C:\報表`
4. 在「設定」勾選「錯過排定的開始時間後，盡快執行工作」，避免電腦剛好在八點還沒開機。

八點執行，九點前就有一個小時的緩衝，萬一失敗還來得及手動處理。

**注意事項**

- 電腦要開機、而且是登入狀態（或設定「不論使用者登入與否均執行」，需要輸入密碼）。
- 如果資料還沒到（業務週一早上才上傳），報表就會是空的。可以在程式裡檢查筆數，太少就在 log 裡警告，並寄信通知自己。
- 最後可以用 Outlook 自動寄報表給主管（`win32com` 套件可以控制 Outlook），但先讓報表自動產生穩定幾週，再加寄信功能。
""", "sched"),
U("另外業務那邊改用 Google Sheets 了，以後不會再寄 Excel 給我。", "gsheets"),
A(r"""
改用 Google Sheets 其實更方便：不用每週收檔案、存到資料夾，程式可以直接去讀最新的資料。做法有兩種，看你們公司 Google 帳號的設定來選。

**方法一：用 gspread 加服務帳號（最穩定）**

1. 在 Google Cloud Console 建立一個專案，啟用 **Google Sheets API** 和 **Google Drive API**。
2. 建立一個**服務帳號（service account）**，下載 JSON 金鑰檔，放在 `C:\報表\金鑰\`，不要放到共用資料夾或寄給別人。
3. 把每個分店的 Google Sheet「共用」給這個服務帳號的 email（只要檢視權限）。
4. 安裝套件：`pip install gspread`

讀取資料：

```python
import gspread
import pandas as pd

gc = gspread.service_account(filename=r"C:\報表\金鑰\report-bot.json")

sheet_ids = {
    "台北信義店": "1AbC...xyz",
    "台中公益店": "1DeF...uvw",
    # 其他分店...
}

frames = []
for store, sid in sheet_ids.items():
    ws = gc.open_by_key(sid).sheet1
    df = pd.DataFrame(ws.get_all_records())
    df["來源"] = store
    frames.append(df)

data = pd.concat(frames, ignore_index=True)
```

之後欄位統一、數字清理、輸出 Excel 的程式都可以照用，只是資料來源從資料夾換成 Google Sheets。

**方法二：發佈成 CSV 連結（最簡單，但要注意權限）**

在 Google Sheets 選「檔案 → 共用 → 發佈到網路」，選 CSV 格式，就會得到一個網址，pandas 可以直接讀：

```python
df = pd.read_csv("https://docs.google.com/spreadsheets/d/e/.../pub?output=csv")
```

缺點是：發佈之後，知道網址的人都能看到資料。銷售數字通常屬於公司機密，所以**不建議**這個方法，除非公司允許。

**如果業務能改成同一份 Google Sheet**

最理想的是請業務把資料填在**同一份試算表的不同工作表**，或同一個工作表加一欄「門市」。這樣只要讀一個檔案，也不會有欄位名稱不一致的問題。可以做一個範本，把欄位固定成「門市、日期、銷售額」，並用資料驗證限制輸入格式。

**公司政策**

有些公司的 Google Workspace 不允許建立服務帳號或對外共用，建議先問 IT。如果不行，也可以改用 Google 帳號授權（OAuth）的方式，gspread 也支援，第一次執行時會開瀏覽器請你登入。
""", "gs_reply"),
U("我比較習慣用 Jupyter，可以一步一步看結果。不太想一直在黑色的命令列視窗打指令。",
  "jupyter"),
A(r"""
完全可以繼續用 Jupyter。很多資料分析的人都是這樣工作的：在 Notebook 裡探索和調整，確定之後再讓它自動執行。重點是讓「自動執行」那一步也不需要你打指令。

**做法一：讓排程直接執行 Notebook**

用 **papermill** 套件，可以直接執行一個 `.ipynb` 檔，並把執行結果另存成一個新的 Notebook，之後你打開就能看到每一格的輸出，出錯時也知道卡在哪一格：

```
pip install papermill
```

在工作排程器裡的設定改成：

- 程式：`C:\Users\你的帳號\anaconda3\python.exe`
- 引數：`-m papermill 週報表.ipynb 輸出\週報表_已執行.ipynb`
- 開始位置：`C:\報表`

這樣你平常還是在 `週報表.ipynb` 裡修改、測試，排程每週一早上八點自動跑一次，不需要另外維護 `.py` 檔。

**做法二：雙擊就能執行的捷徑**

如果有時候想手動產生報表，可以做一個 `產生週報表.bat` 檔放在桌面，內容只有一行：

```
C:\Users\你的帳號\anaconda3\python.exe -m papermill C:\報表\週報表.ipynb C:\報表\輸出\週報表_已執行.ipynb
```

雙擊它就會執行，完全不用開命令列打字。

**讓 Notebook 適合自動執行的小習慣**

- 把需要改的設定（例如報表週次、輸出路徑）集中在**第一格**。papermill 可以從外面傳參數進來，只要把那一格加上「parameters」標籤。
- 每一格只做一件事：讀資料、清理、彙總、輸出，出錯時比較好找。
- 不要在 Notebook 裡留下需要手動輸入的 `input()`。
- 定期「重新啟動並全部執行」一次，確定從頭跑到尾都沒問題。這是最常見的問題：平常一格一格跑正常，但依序從頭跑就會出錯。

**也可以試試 VS Code**

VS Code 也能開 Jupyter Notebook，介面跟 Jupyter 很像，還能看變數的內容和資料表。不過既然你習慣 Jupyter，不一定要換。

**保留版本**

每次大改 Notebook 前，先複製一份（例如 `週報表_0519.ipynb`），萬一改壞了可以回到上一個可以用的版本。
""", "jup_reply"),
]),
], [
("我的工作是什麼？會寫程式嗎？", ["role"], "user-fact"),
("每次大概要合併幾個檔案？", ["role"], "user-fact"),
("報表的欄位名稱我希望用什麼語言？為什麼？", ["zhcols"], "preference"),
("主管希望收到什麼格式的報表？", ["excel_out"], "user-fact"),
("報表現在多久要交一次？什麼時候要給？", ["weekly"], "update"),
("Where does the sales team put their numbers now?", ["gsheets"], "update", "en"),
("Which tool do I prefer to work in, and why?", ["jupyter"], "preference", "en"),
("你建議用哪個套件在 Excel 裡畫圖表？", ["xlsx"], "reply-fact"),
("每週自動產生報表，你建議用什麼來排程？幾點執行？", ["sched"], "reply-fact"),
("How did you suggest reading the Google Sheets from Python?", ["gs_reply"], "reply-fact",
 "en"),
("各分店欄位名稱寫法不一樣時，你建議怎麼處理？", ["cols"], "reply-fact"),
("你說要用哪個套件讓 Notebook 自動執行？", ["jup_reply"], "reply-fact"),
("資料來源和交報表的頻率，後來各改成什麼？", ["weekly", "gsheets"], "multi"),
("一開始我說報表是多久做一次？", ["role"], "temporal"),
("Since my boss never opens Python, what file did you have the script produce, and with which library?",
 ["excel_out", "xlsx"], "multi", "en"),
]))

# --------------------------------------------------------------------------------------------
CONVS.append(Conv("lr-16", "Rachel", "en", [
("2025-08-09 15:00", [
U("I want to set up a home NAS for family photos and documents. We have about 2 TB of photos "
  "spread across laptops and old drives. Budget is around $600.", "twotb"),
A(r"""
A NAS is a great way to get family photos out of scattered laptops and aging drives. With about 2 TB today and a $600 budget, you can get a two-bay NAS with mirrored drives and room to grow — but remember that a NAS on its own is storage, not a backup. We'll plan both.

**Option 1: a prebuilt two-bay NAS (recommended)**

A **Synology DS224+** (about $300) or a similar two-bay unit from QNAP or UGREEN, plus two drives:

- **2 × 8 TB NAS drives** (about $150–170 each) in a mirror (RAID 1 or Synology's SHR). You get 8 TB usable, four times what you need now.
- Total: roughly **$600–640**.

Why prebuilt: it's quiet, low-power (around 15–20 W), and the software (photo apps, backups, sharing, updates) is polished. For a family setup you don't want to maintain, that matters more than raw performance.

**Option 2: DIY**

An old PC or a mini PC with TrueNAS or Unraid. Cheaper if you have hardware lying around, more flexible, but more to maintain, louder and more power-hungry. I'd only go this way if you enjoy tinkering.

**The 3-2-1 rule**

- **3 copies** of your data,
- on **2 different kinds of media**,
- with **1 copy offsite**.

The NAS mirror protects against a single drive failing. It doesn't protect against accidental deletion, ransomware, theft, fire, or the NAS itself failing. So:

1. **Primary copy:** the NAS.
2. **Snapshots** on the NAS (Btrfs snapshots on Synology) for "oops, I deleted the wrong folder".
3. **Offsite copy:** a cloud backup service, or a drive kept at a relative's house.

**Getting 2 TB onto it**

- Collect everything in one place on the NAS first (a folder per source: `Dana-laptop`, `old-drive-2015`, etc.).
- Deduplicate afterwards, not during — tools like Synology Photos or dupeGuru can find duplicates once everything is in one place.
- Keep the old drives untouched until the NAS and the offsite backup both have everything.

**Photos app**

Synology Photos gives phone backup (automatic upload from phones), face recognition and shared albums, similar to Google Photos but on your own hardware.

Where will it live in the house, and what computers and phones does the family use? That affects the setup.
""", "nas_choice"),
U("It's going to sit in the living room, so it has to be quiet. Everyone in the house uses a Mac.",
  "quiet_mac"),
A(r"""
Both points are easy to accommodate. Two-bay NAS units are quiet to begin with; the drives are the main noise source, so choose them carefully. And Macs work very well with Synology — Time Machine backups to the NAS are built in.

**Keeping it quiet**

- **Drives:** pick drives in the "5400 rpm class", like **WD Red Plus** or Seagate IronWolf (non-Pro) at 8 TB. They're noticeably quieter than enterprise drives (WD Red Pro, Seagate Exos, 7200 rpm), which have louder seek noise — the "clicking" that bothers people in a living room.
- **Placement:** put it on a solid shelf with a rubber or foam pad underneath to absorb vibration. Avoid hollow furniture, which amplifies drive noise. Leave a few centimeters of space behind for airflow.
- **Fan setting:** Synology's "Quiet mode" fan profile keeps the fan low when temperatures allow.
- **HDD hibernation:** you can let drives spin down after 20–30 minutes of inactivity. It saves power and noise, but frequent spin-ups add wear, and phone photo backups can wake the drives often. Try it and see.
- **Schedule heavy work at night:** data scrubbing, indexing of photos, and backups can run at 2 a.m.

**Mac setup**

- **File sharing:** enable SMB (the default protocol macOS uses now). In Finder, *Go → Connect to Server* and enter `smb://nas.local`.
- **Time Machine:** in DSM, *Control Panel → File Services → Advanced → Bonjour Time Machine broadcast via SMB*, and create a shared folder `TimeMachine` with a **quota per Mac** (e.g., 1–1.5 TB each), otherwise Time Machine will fill the NAS.
- Each Mac then picks the NAS in *System Settings → General → Time Machine*.
- **Photos:** if you use Apple Photos libraries, don't put the library itself on the NAS — Photos libraries on network drives can get corrupted. Instead, export originals to the NAS, or use Synology Photos for the shared family archive and keep each person's Apple Photos library local (backed up by Time Machine).

**Phones**

Install the Synology Photos app on iPhones for automatic backup of new photos over home Wi-Fi.

**Accounts**

Create a separate user account on the NAS for each family member, plus a shared `Family` folder. It keeps personal documents private and shared photos in one place.
""", "mac_setup"),
U("Our internet upload speed is only 20 Mbps. Does offsite backup to the cloud even make sense "
  "with that?", "upload"),
A(r"""
It does — it just means the first upload takes a while, and after that, daily changes are small. Let's do the math.

**Initial upload**

20 Mbps upload is about 2.5 MB/s in theory; in practice you'll see maybe 2 MB/s sustained, and you don't want to saturate your connection all day.

- 2 TB ÷ 2 MB/s ≈ 1,000,000 seconds ≈ **11–12 days** of continuous upload.
- If you limit the backup to run only at night (say 10 p.m. to 7 a.m.) at full speed, it takes about **4 weeks**.

That's a one-time cost. After the initial upload, only new and changed files go up — a few GB a week for a family, which takes minutes.

**Tips for the initial upload**

- **Bandwidth limit during the day:** Synology Hyper Backup lets you set a schedule and a speed cap, so video calls and streaming aren't affected.
- **Prioritize:** back up the irreplaceable photos first, then documents, then everything else.
- **Some ISPs have data caps:** check yours; 2 TB of upload is unusual.

**Which cloud**

- **Backblaze B2**: about **$6 per TB per month**, so roughly **$12/month** for 2 TB. Works with Hyper Backup directly. Egress (downloading) is free up to a generous limit.
- **Synology C2 Storage**: integrated, similar price range.
- Amazon S3 Glacier-type storage is cheaper to store but expensive and slow to restore — not ideal for a family.

**Encryption**

Enable **client-side encryption** in Hyper Backup, so the cloud provider only sees encrypted data. **Store the encryption password somewhere safe outside the NAS** (a password manager plus a printed copy). If the NAS dies and you lose the password, the backup is useless.

**Versioning**

Keep multiple versions (e.g., daily for a week, weekly for a month, monthly for a year). If ransomware encrypts your files, you can restore yesterday's version.

**Alternative: a drive at a relative's house**

Buy an 8 TB external drive, back up to it at home (fast, over USB), and keep it at your parents' place, swapping it every month or two. It's cheap and avoids the slow upload, but relies on remembering to swap. Many families do both.

**Test a restore**

Once the initial upload finishes, restore a folder from the cloud to a different location and open a few photos. A backup you haven't tested is only a hope.
""", "offsite"),
]),
("2025-09-13 11:30", [
U("Small change: my husband got a Windows laptop from work, so it's not an all-Mac house "
  "anymore.", "windows"),
A(r"""
No problem — Synology works just as well with Windows. The main thing to think about is that it's a **work laptop**, which may come with company policies about where files can be stored and what software can be installed.

**Access from Windows**

- SMB is already enabled for the Macs, so Windows can use the same shares. In File Explorer, type `\\nas` or `\\192.168.1.x` in the address bar, or right-click *This PC → Map network drive* and assign a drive letter to the `Family` folder.
- Make sure **SMB1 is disabled** on the NAS (the default on modern DSM); Windows 10/11 uses SMB2/3.
- Use his own NAS user account, not a shared one.

**Backing up the Windows laptop**

Options, depending on what his company allows:

- **Synology Active Backup for Business** (free with the DS224+): installs a small agent on Windows and makes full-image or file backups to the NAS. Very good, but requires installing software on the laptop.
- **Windows File History** pointing to a NAS folder: built in, backs up user folders.
- **Synology Drive Client**: syncs chosen folders to the NAS.

**The work-laptop caveat**

- Many companies **don't allow** backing up work data to personal storage, and their IT may block installing the Active Backup agent. Work files usually belong on company systems (OneDrive, SharePoint) anyway.
- So the simplest rule: his work laptop *accesses* family photos on the NAS, but isn't backed up to it. If he has personal files on it, move them to the NAS or to a personal device.
- Check whether the company VPN blocks access to local network devices; some VPN configurations do. If so, disconnect from the VPN to reach the NAS, or ask IT about "local LAN access".

**Photos from his phone**

If his phone is Android, the Synology Photos app works there too, with the same automatic backup.

**Time Machine quotas**

Since one Mac is no longer in the rotation (if he used one before), you can reduce the total Time Machine space or reassign his quota.

**Permissions**

With mixed Mac and Windows clients, stick to simple permissions on the shared folder (everyone in a "family" group with read/write) and avoid editing permissions from the client side, which can create confusing ACLs.
""", "win_reply"),
U("I bought the DS224+ with two 8 TB drives. Also I really don't want anything exposed to the "
  "internet, I'm a bit paranoid about security.", "bought"),
A(r"""
Good choice on the hardware, and your instinct about exposure is right: NAS devices directly reachable from the internet are a favorite ransomware target. You can have remote access without opening anything to the public internet.

**Don't do these**

- **No port forwarding** on your router to the NAS (no opening 5000/5001, 443 or SMB ports).
- **Disable QuickConnect** (*Control Panel → External Access → QuickConnect*) unless you specifically need it; it's convenient, but it makes the NAS reachable through Synology's relay service.
- Disable UPnP on the router so devices can't open ports by themselves.

**Remote access the safe way: Tailscale**

**Tailscale** creates a private encrypted network between your own devices. The NAS isn't reachable from the internet at all — only from devices logged into your Tailscale account.

- Install the Tailscale package on the DS224+ (available in Package Center or from Tailscale's site).
- Install Tailscale on your phones and laptops.
- Access the NAS from anywhere by its Tailscale name, e.g., `http://ds224:5000` or the Synology Photos app pointing to the Tailscale address.
- Free for personal use with a small number of users and devices.

A VPN server on your router (WireGuard) is an alternative if you prefer not to use a third-party coordination service.

**Hardening the NAS**

- **Disable the default `admin` account**; create a new admin user with a unique name and a strong password.
- **2-factor authentication** for admin accounts.
- **Auto block** after failed logins (*Control Panel → Security → Protection*).
- **Automatic DSM updates** for security fixes.
- **Only install packages you use.**
- Keep the firewall enabled with rules allowing only your local network and the Tailscale subnet.

**Protection against ransomware**

- **Snapshots** with Snapshot Replication: hourly or daily snapshots, kept for 30 days. Make them **immutable** (supported on recent DSM versions) so even an admin account can't delete them for a set period.
- **Offsite backup** with versioning, as planned, to Backblaze B2 — with client-side encryption.
- Don't map the NAS as a drive on computers that don't need it; ransomware on a laptop can encrypt mapped drives.

**Drive setup**

With two 8 TB drives in SHR-1 (a mirror), run the extended SMART test on both before loading data, and schedule a monthly data scrub at night.
""", "security"),
U("My mom wants to add her photos too. She has about 500 GB on an old Windows PC in another "
  "city.", "mom"),
A(r"""
That's a nice way to protect her photos too, and there's plenty of room: 2 TB plus 500 GB is about **2.5 TB** on your 8 TB mirror, so you'll still have over 5 TB free. The tricky part is getting 500 GB from another city safely, given your no-exposure rule.

**Option 1: carry it (fastest for the first copy)**

- Bring or mail her an external drive, copy her photo folders onto it (or copy it yourself on your next visit), and import it on your NAS at home.
- 500 GB over USB takes an hour or two, versus days over the internet.
- Afterwards, set up ongoing sync for new photos only.

**Option 2: over Tailscale**

Keep everything private, as you wanted:

- Install **Tailscale** on her Windows PC, logged into your Tailscale account (or invite her as a user, with an access rule that only lets her device reach the NAS).
- Install **Synology Drive Client** on her PC and sync her `Pictures` folder to a folder on the NAS, e.g., `/Family/Grandma`.
- Her upload speed matters: if she has, say, 10 Mbps upload, 500 GB takes roughly 5–6 days of continuous upload. Limit the bandwidth in Drive Client during the day.

I'd combine both: carry the first 500 GB, then use Drive Client over Tailscale for new photos.

**Old PC risks**

- An old Windows PC is a single point of failure — the sooner her photos are copied, the better.
- Check whether it's still getting Windows security updates; if it runs Windows 10, support ended in October 2025. A PC that no longer gets updates shouldn't stay online long-term, even with Tailscale limiting what it can reach.

**Updated offsite backup**

- With 2.5 TB in Backblaze B2 at about $6/TB per month, the cloud bill goes from about $12 to roughly **$15 per month**.
- The initial upload of her extra 500 GB takes about 3 more days at your 20 Mbps, spread over nights.

**Permissions**

Give her a NAS user account with access only to her own folder and the shared family albums, and turn on 2-factor authentication. If she only views photos, the Synology Photos app on her phone or tablet is the easiest way.

**Deduplication**

Family photo collections overlap a lot. After importing, look for duplicates between her folder and yours before the upload to B2, to save space and money.
""", "mom_reply"),
]),
], [
("How much photo data did we start with, and what was the NAS budget?", ["twotb"],
 "user-fact"),
("Where is the NAS going to be kept, and what does that mean for noise?", ["quiet_mac"],
 "preference"),
("What computers does our household use now?", ["windows"], "update"),
("What's our home upload speed?", ["upload"], "user-fact"),
("How do I feel about making the NAS reachable from the internet?", ["bought"], "preference"),
("Which NAS model and drives did I end up buying?", ["bought"], "user-fact"),
("How much data does my mom have, and where is it?", ["mom"], "user-fact"),
("How long did you estimate the first cloud upload would take?", ["offsite"], "reply-fact"),
("Which cloud storage did you suggest, and about how much per month?", ["offsite"],
 "reply-fact"),
("What did you recommend for remote access instead of opening ports?", ["security"],
 "reply-fact"),
("Which drives did you suggest for a quiet living-room NAS?", ["mac_setup"], "reply-fact"),
("With my mom's photos added, how much space will we use, and how does the cloud bill "
 "change?", ["mom", "mom_reply"], "multi"),
("Back when we started, which computers did the family use?", ["quiet_mac"], "temporal"),
("Before my husband's work laptop, how did you suggest backing up the family's computers?",
 ["mac_setup"], "temporal"),
]))

/* SPDX-License-Identifier: BSD-3-Clause */
#include "sender.h"

#include <algorithm>
#include <cstring>
#include <ctime>

#include "ina/goat_wire.h"
#include "ina/worker/quantize.h"
#include "worker_impl.h"

namespace ina {

namespace {

constexpr uint32_t kTxBatch = 32;
constexpr uint32_t kRxBatch = 64;
constexpr uint32_t kFrameBytes = AckRing::kSlotBytes;
/* How long a thread with nothing to send waits in recv() / for work. */
constexpr uint32_t kBusyWaitUs = 50;
constexpr uint32_t kIdleWaitUs = 200;
/* With its window full, a thread can only be woken by a packet or by its
 * timer: it waits up to the timer's next check, at most this long. */
constexpr uint64_t kFullWindowWaitNs = 2'000'000;
/* ACK coalescing of a full window (Sender::coalesce): bounds of the sleep. */
constexpr uint64_t kCoalesceMinNs = 20'000;
constexpr uint64_t kCoalesceMaxNs = 500'000;

enum Counter : uint32_t {
	C_FRAGMENTS,
	C_PACKETS,
	C_BYTES,
	C_RETX,
	C_FAST_RETX,
	C_TIMEOUTS,
	C_BYPASS,
	C_ACKS,
	C_DUP_ACKS,
	C_OOO_ACKS,
	C_STALE_ACKS,
	C_ECN_ACKS,
	C_DELAY_ACKS,
	C_COL_ACKS,
	C_REMAPS,
	C_SWITCH_ACKS,
	C_FLOAT_ACKS,
	C_OVERFLOW_REQ,
	C_RESEND_REQ,
	C_FLOAT_SENT,
	C_SATURATED,
	C_RX_NOT_INA,
	C_RX_MALFORMED,
	C_RX_OTHER_JOB,
	C_RX_NOT_FROM_PS,
	C_RX_NOT_FOR_WORKER,
	C_TX_BACKPRESSURE,
	C_TENSORS,
	C_COUNT
};
static_assert(C_COUNT <= 32, "SenderCounters::v");

uint64_t now_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
}

Endpoint endpoint_of(const Transport &tx)
{
	Endpoint e;
	tx.mac(e.mac);
	e.ip = tx.ip();
	e.port = INA_UDP_PORT;
	return e;
}

Endpoint ps_endpoint(const WorkerConfig &cfg, const PsAddress &ps)
{
	Endpoint e;
	static const uint8_t zero[6] = {0, 0, 0, 0, 0, 0};
	memcpy(e.mac, memcmp(cfg.next_hop_mac, zero, 6) ? cfg.next_hop_mac : ps.mac, 6);
	e.ip = ps.ip;
	e.port = INA_UDP_PORT;
	return e;
}

GradientTemplate template_of(const WorkerConfig &cfg)
{
	GradientTemplate t;
	t.job_id = cfg.job_id;
	t.epoch = cfg.epoch;
	t.agg_node = cfg.agg_node;
	t.level = cfg.start_level;
	t.levels = cfg.levels;
	make_bitmaps(cfg.start_level, cfg.levels, cfg.bit, t.bitmap);
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++)
		t.fan_in[i] = i < cfg.levels ? cfg.fan_in[i] : 0;
	return t;
}

/* How often the retransmission timer is checked: a quarter of the RTO. */
uint64_t timer_period(uint64_t rto_ns)
{
	return std::max<uint64_t>(rto_ns / 4, 200'000);
}

} /* namespace */

/* ---- Sender ---- */

Sender::Sender(WorkerImpl *w, uint32_t id, std::unique_ptr<Transport> tx, const WorkerConfig &cfg, double flows)
    : w_(w), id_(id), tx_(std::move(tx)), cfg_(cfg),
      win_(cfg.window_capacity), rtt_(cfg.rtt), cc_(make_congestion_control(cfg.cc, cfg.aggregators, flows, win_.capacity())),
      goat_(cfg.goat, cfg.goat_aggregators, cfg.aggregators),
      retx_queued_(win_.capacity(), 0)
{
	span_ = static_cast<uint64_t>(cfg.ps_window) * cfg.ps.size();
	for (const PsAddress &p : cfg.ps) {
		writers_.emplace_back(endpoint_of(*tx_), ps_endpoint(cfg, p), template_of(cfg));
		ps_ips_.push_back(p.ip);
	}
	retx_.reserve(win_.capacity());
	for (uint32_t i = 0; i < cfg.threads; i++)
		rings_.push_back(std::make_unique<AckRing>());
	txmem_.resize(static_cast<size_t>(kTxBatch) * kFrameBytes);
	rxmem_.resize(static_cast<size_t>(kRxBatch) * kFrameBytes);
	txbufs_.resize(kTxBatch);
	rxbufs_.resize(kRxBatch);
	txent_.resize(kTxBatch);
	for (uint32_t i = 0; i < kTxBatch; i++)
		txbufs_[i] = FrameBuf{&txmem_[static_cast<size_t>(i) * kFrameBytes], 0, kFrameBytes};
	for (uint32_t i = 0; i < kRxBatch; i++)
		rxbufs_[i] = FrameBuf{&rxmem_[static_cast<size_t>(i) * kFrameBytes], 0, kFrameBytes};
	for (auto &v : c_.v)
		v.store(0, std::memory_order_relaxed);
	publish_cc();
	rto_.store(rtt_.rto_ns(), std::memory_order_relaxed);
}

Sender::~Sender()
{
	stop();
}

void Sender::start()
{
	th_ = std::thread([this] { run(); });
}

void Sender::stop()
{
	{
		std::lock_guard<std::mutex> g(inbox_m_);
		stop_.store(true);
	}
	inbox_cv_.notify_all();
	if (th_.joinable())
		th_.join();
}

void Sender::bump(uint32_t c, uint64_t n)
{
	c_.v[c].store(c_.v[c].load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

void Sender::give(std::shared_ptr<TensorState> t)
{
	load_.fetch_add(t->n * sizeof(float), std::memory_order_relaxed);
	{
		std::lock_guard<std::mutex> g(inbox_m_);
		/* Tensors arrive in seq order, so this only lowers an idle
		 * thread's floor. */
		if (t->seq64 < floor_.load(std::memory_order_relaxed))
			floor_.store(t->seq64, std::memory_order_relaxed);
		inbox_.push_back(std::move(t));
		inbox_nonempty_.store(true, std::memory_order_release);
	}
	inbox_cv_.notify_one();
}

void Sender::take_new_tensors()
{
	if (!inbox_nonempty_.load(std::memory_order_acquire))
		return;
	std::lock_guard<std::mutex> g(inbox_m_);
	while (!inbox_.empty()) {
		std::shared_ptr<TensorState> t = std::move(inbox_.front());
		inbox_.pop_front();
		if (w_->failed()) {
			load_.fetch_sub(t->n * sizeof(float), std::memory_order_relaxed);
			t->finish(-1, "worker failed earlier");
			continue;
		}
		t->local_base = stream_end_;
		stream_end_ += t->nfrags;
		t->as_float.assign(t->nfrags, 0);
		if (active_.empty())
			last_progress_ns_ = clock();
		active_.push_back(std::move(t));
	}
	inbox_nonempty_.store(false, std::memory_order_relaxed);
}

TensorState *Sender::tensor_of_k(uint64_t k, uint32_t *frag)
{
	for (auto &t : active_) {
		if (k - t->local_base < t->nfrags) {
			*frag = static_cast<uint32_t>(k - t->local_base);
			return t.get();
		}
	}
	return nullptr;
}

TensorState *Sender::tensor_of_seq(uint32_t seq)
{
	for (auto &t : active_)
		if (t->owns_seq(seq))
			return t.get();
	return nullptr;
}

void Sender::goat_route(const TensorState &t, uint32_t f, uint32_t seq, uint32_t *index, uint16_t *flags,
			int *node) const
{
	*node = -1;
	if (goat_.empty())
		return;
	const uint64_t elem = (t.elem_base + static_cast<uint64_t>(f) * cfg_.elements_per_packet) % goat_.round();
	const GoatMap::Where &w = goat_.at(elem);
	*node = w.agg_node;
	if (w.agg_node == INA_AGG_NODE_ANY)
		*flags |= INA_F_BYPASS;
	/* A worker of a split sub-model sending to the PS indexes the switches'
	 * aggregators too: the parameter packet frees them by that index. */
	if (w.end > w.first)
		*index = goat_index(seq, w.first, w.end);
}

void Sender::queue_retransmit(uint64_t k)
{
	uint8_t &q = retx_queued_[k & (win_.capacity() - 1)];
	if (q)
		return;
	q = 1;
	retx_.push_back(k);
}

bool Sender::pump_send(uint64_t now)
{
	const uint32_t epp = cfg_.elements_per_packet;
	for (;;) {
		uint32_t nb = 0;
		uint32_t saturated = 0;
		uint64_t next_new = win_.next();
		uint32_t in_flight = win_.in_flight();
		/* Retransmissions first: they unblock the job's other workers. */
		size_t ri = 0;
		while (nb < kTxBatch && ri < retx_.size()) {
			uint64_t k = retx_[ri++];
			retx_queued_[k & (win_.capacity() - 1)] = 0;
			uint32_t f;
			TensorState *t = tensor_of_k(k, &f);
			if (!t || win_.acked(k))
				continue;
			uint32_t seq = t->seq_base + f;
			uint32_t index = w_->remap().index(t->seq64 + f);
			uint32_t ne = t->frag_elems(f, epp);
			const float *vals = t->data + static_cast<size_t>(f) * epp;
			uint16_t flags = INA_F_RESEND;
			if (win_.bypassed(k))
				flags |= INA_F_BYPASS;
			int node;
			goat_route(*t, f, seq, &index, &flags, &node);
			FrameBuf &b = txbufs_[nb];
			if (t->as_float[f])
				b.len = writer(seq).floats(b.data, seq, index, flags | INA_F_BYPASS, vals, static_cast<uint16_t>(ne),
							   node);
			else
				b.len = writer(seq).gradient(b.data, seq, index, flags, vals, static_cast<uint16_t>(ne),
							 t->scale, &saturated, node);
			txent_[nb++] = TxEntry{k, false, false};
		}
		retx_.erase(retx_.begin(), retx_.begin() + static_cast<long>(ri));

		uint32_t win = cc_->window();
		uint32_t fresh = 0;
		const uint64_t limit = w_->floor() + span_;
		const uint64_t end = std::min(stream_end_, cc_->send_limit());
		while (nb < kTxBatch && next_new + fresh < end && in_flight + fresh < win &&
		       next_new + fresh - win_.base() <= win_.capacity() - 1) {
			uint64_t k = next_new + fresh;
			uint32_t f;
			TensorState *t = tensor_of_k(k, &f);
			if (!t || t->seq64 + f >= limit)
				break;
			uint32_t seq = t->seq_base + f;
			uint32_t index = w_->remap().index(t->seq64 + f);
			uint32_t ne = t->frag_elems(f, epp);
			uint16_t flags = 0;
			int node;
			goat_route(*t, f, seq, &index, &flags, &node);
			/* A2TP: the job's schedule says alike at every worker. */
			bool bypass = (flags & INA_F_BYPASS) || cc_->bypass(k);
			if (bypass)
				flags |= INA_F_BYPASS;
			FrameBuf &b = txbufs_[nb];
			b.len = writer(seq).gradient(b.data, seq, index, flags, t->data + static_cast<size_t>(f) * epp,
						 static_cast<uint16_t>(ne), t->scale, &saturated, node);
			txent_[nb++] = TxEntry{k, true, bypass};
			fresh++;
		}
		if (nb == 0)
			return false;

		uint32_t sent = tx_->send(txbufs_.data(), nb);
		if (sent < nb)
			bump(C_TX_BACKPRESSURE);
		bump(C_SATURATED, saturated);
		for (uint32_t i = 0; i < nb; i++) {
			const TxEntry &e = txent_[i];
			if (i >= sent) {
				/* Not queued by the transport: retransmissions go
				 * back to the queue, fresh ones are sent later. */
				if (!e.fresh)
					queue_retransmit(e.k);
				continue;
			}
			bump(C_PACKETS);
			if (e.fresh) {
				win_.send_new(now, e.bypass);
				bump(C_FRAGMENTS);
				bump(C_BYPASS, e.bypass);
			} else {
				win_.resend(e.k, now);
				bump(C_RETX);
			}
		}
		if (sent < nb)
			return true;
	}
}

void Sender::handle_frame(const uint8_t *frame, uint32_t len, uint64_t now)
{
	PsMessage m;
	switch (parse_from_ps(frame, len, cfg_.job_id, ps_ips_.data(), ps_ips_.size(), &m)) {
	case RxVerdict::param:
	case RxVerdict::overflow_request:
	case RxVerdict::resend_request:
		break;
	case RxVerdict::not_ina:
		bump(C_RX_NOT_INA);
		return;
	case RxVerdict::malformed:
		bump(C_RX_MALFORMED);
		return;
	case RxVerdict::other_job:
		bump(C_RX_OTHER_JOB);
		return;
	case RxVerdict::not_from_ps:
		bump(C_RX_NOT_FROM_PS);
		return;
	case RxVerdict::not_for_worker:
		bump(C_RX_NOT_FOR_WORKER);
		return;
	}
	TensorState *t = tensor_of_seq(m.seq);
	if (!t && cfg_.threads > 1) {
		int owner = w_->owner_of(m.seq);
		if (owner >= 0 && static_cast<uint32_t>(owner) != id_) {
			w_->sender(owner).ring_from(id_).push(m, frame, len);
			return;
		}
	}
	handle_message(t, m, now);
}

void Sender::handle_message(TensorState *t, const PsMessage &m, uint64_t now)
{
	if (!t) {
		bump(C_STALE_ACKS);
		return;
	}
	if (m.flags & INA_F_ACK)
		handle_param(t, m, now);
	else if (m.flags & INA_F_OVERFLOW)
		handle_overflow(t, m);
	else
		handle_resend_request(t, m);
}

/* The PS misses this worker's copy of a split fragment (docs/ps.md): sent
 * again as it was, int32, marked RESEND. */
void Sender::handle_resend_request(TensorState *t, const PsMessage &m)
{
	uint64_t k = t->local_base + (m.seq - t->seq_base);
	bump(C_RESEND_REQ);
	if (k >= win_.next() || win_.acked(k))
		return;
	queue_retransmit(k);
}

void Sender::handle_overflow(TensorState *t, const PsMessage &m)
{
	uint32_t f = m.seq - t->seq_base;
	uint64_t k = t->local_base + f;
	bump(C_OVERFLOW_REQ);
	if (k >= win_.next() || win_.acked(k))
		return;
	if (!t->as_float[f]) {
		t->as_float[f] = 1;
		bump(C_FLOAT_SENT);
	}
	queue_retransmit(k);
}

void Sender::handle_param(TensorState *t, const PsMessage &m, uint64_t now)
{
	const uint32_t epp = cfg_.elements_per_packet;
	uint32_t f = m.seq - t->seq_base;
	uint64_t k = t->local_base + f;
	uint32_t ne = t->frag_elems(f, epp);
	if (m.elem_count != ne) {
		bump(C_RX_MALFORMED);
		return;
	}
	SendWindow::AckOutcome o = win_.on_ack(k, now);
	if (o.kind == SendWindow::AckKind::duplicate || o.kind == SendWindow::AckKind::unknown) {
		bump(C_DUP_ACKS);
		return;
	}
	float *dst = t->data + static_cast<size_t>(f) * epp;
	if (m.flags & INA_F_FLOAT) {
		floats_from_wire(m.payload, dst, ne);
		bump(C_FLOAT_ACKS);
	} else {
		dequantize_from_wire(m.payload, dst, ne, t->scale);
	}
	bump(C_ACKS);
	if (o.kind == SendWindow::AckKind::out_of_order)
		bump(C_OOO_ACKS);
	else
		update_floor();
	if ((m.flags & INA_F_ECN) || m.ip_ce)
		bump(C_ECN_ACKS);
	if (m.flags & INA_F_COL)
		bump(C_COL_ACKS);
	/* docs/ps.md: level = levels marks a result that reached the PS
	 * complete from the network. */
	if (m.levels > 0 && m.level == m.levels)
		bump(C_SWITCH_ACKS);
	if (m.remap_index != INA_NO_REMAP && w_->remap().apply_hint(t->seq64 + f, m.remap_index))
		bump(C_REMAPS);
	/* Back-off ends with a valid sample (a fragment sent once); ACKs of
	 * retransmitted fragments keep it: on a loaded host only the quick
	 * fragments escape the timeout, so their samples alone would pull
	 * the RTO below the real ACK delay (Karn's bias). */
	if (o.rtt_ns) {
		rtt_.sample(o.rtt_ns);
		srtt_.store(rtt_.srtt_ns(), std::memory_order_relaxed);
		win_.set_reorder_window(rtt_.srtt_ns() * cfg_.reorder_window_pct / 100);
	}
	rto_.store(rtt_.rto_ns(), std::memory_order_relaxed);
	/* The next check was planned with the RTO of then: the first one, 1 s,
	 * would leave a fragment lost in the first round unnoticed for 250 ms
	 * after the samples brought the RTO down to milliseconds. */
	next_timer_ns_ = std::min(next_timer_ns_, now + timer_period(rtt_.rto_ns()));
	if (o.rtt_ns)
		rtt_min_.sample(o.rtt_ns, now);
	const bool delayed = cfg_.delay_target_ns && o.rtt_ns && o.rtt_ns > rtt_min_.get() + cfg_.delay_target_ns;
	if (delayed)
		bump(C_DELAY_ACKS);
	/* INA_F_ECN is the PS's word on the aggregate, the same at every
	 * worker; IP CE and a long delay are this worker's own path. */
	CcAck a{k, win_.next(), (m.flags & INA_F_ECN) != 0, (m.flags & INA_F_COL) != 0, now,
		rtt_.srtt_ns(), m.ps_clock, f == 0, m.ip_ce || delayed};
	if (cut_deferred_) {
		cut_deferred_ = false;
		if (now - last_progress_ns_ <= 2 * cfg_.rtt.max_rto_ns)
			cc_->on_loss(deferred_cut_);
		else
			outage_end_k_ = win_.next(); /* what was sent so far met the outage */
	}
	cc_->on_ack(a);
	/* recovery = timeout (SwitchML's): the ACKs' loss signal is ignored,
	 * the fragment waits for the timer. */
	for (uint32_t i = 0; cfg_.recovery == Recovery::atp && i < o.lost; i++) {
		queue_retransmit(win_.lost_at(i));
		bump(C_FAST_RETX);
		if (win_.lost_at(i) >= outage_end_k_)
			cc_->on_loss(CcLoss{win_.lost_at(i), win_.next(), false});
	}
	publish_cc();
	last_progress_ns_ = now;

	if (++t->acked == t->nfrags) {
		bump(C_TENSORS);
		bump(C_BYTES, t->n * sizeof(float));
		load_.fetch_sub(t->n * sizeof(float), std::memory_order_relaxed);
		t->finish(1);
		retire_done();
	}
}

void Sender::update_floor()
{
	uint32_t f;
	TensorState *t = win_.base() < stream_end_ ? tensor_of_k(win_.base(), &f) : nullptr;
	if (t) {
		floor_.store(t->seq64 + f, std::memory_order_relaxed);
		return;
	}
	std::lock_guard<std::mutex> g(inbox_m_);
	floor_.store(inbox_.empty() ? UINT64_MAX : inbox_.front()->seq64, std::memory_order_relaxed);
}

void Sender::retire_done()
{
	/* Only from the front: the window maps local indices through the list. */
	while (!active_.empty() && active_.front()->status.load(std::memory_order_relaxed) != 0 &&
	       win_.base() >= active_.front()->local_base + active_.front()->nfrags)
		active_.pop_front();
}

void Sender::check_timeouts(uint64_t now)
{
	uint64_t rto = rtt_.rto_ns();
	next_timer_ns_ = now + timer_period(rto);
	if (!active_.empty() && now - last_progress_ns_ > cfg_.stall_timeout_ns) {
		fail_all("no parameter packets from the PS for " +
			 std::to_string(cfg_.stall_timeout_ns / 1000000) + " ms");
		return;
	}
	if (win_.in_flight() == 0)
		return;
	uint64_t lost[256];
	/* Only the oldest few: see WorkerConfig::timeout_burst. */
	uint32_t n = win_.collect_timeouts(now, rto, lost, std::min<uint32_t>(256, cfg_.timeout_burst));
	uint32_t queued = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (retx_queued_[lost[i] & (win_.capacity() - 1)])
			continue;
		queue_retransmit(lost[i]);
		queued++;
	}
	if (queued) {
		bump(C_TIMEOUTS, queued);
		if (!cut_deferred_) {
			cut_deferred_ = true;
			deferred_cut_ = CcLoss{lost[0], win_.next(), true};
		}
		rtt_.backoff();
		rto_.store(rtt_.rto_ns(), std::memory_order_relaxed);
		publish_cc();
	}
}

void Sender::fail_all(const std::string &why)
{
	w_->set_failed(why);
	for (auto &t : active_) {
		if (t->status.load() == 0) {
			load_.fetch_sub(t->n * sizeof(float), std::memory_order_relaxed);
			t->finish(-1, why);
		}
	}
	active_.clear();
	floor_.store(UINT64_MAX, std::memory_order_relaxed);
	/* Forget the stream: a failed job accepts no more tensors. */
	retx_.clear();
	std::fill(retx_queued_.begin(), retx_queued_.end(), 0);
}

uint64_t Sender::clock() const
{
	return stepped_ ? stepped_now_ : now_ns();
}

void Sender::run()
{
	while (!stop_.load(std::memory_order_relaxed)) {
		take_new_tensors();
		if (active_.empty()) {
			/* Nothing of ours in flight: forward other threads'
			 * ACKs, then sleep until a tensor arrives. */
			if (cfg_.threads > 1) {
				const uint64_t now = clock();
				uint32_t n = tx_->recv(rxbufs_.data(), kRxBatch, 0);
				for (uint32_t i = 0; i < n; i++)
					handle_frame(rxbufs_[i].data, rxbufs_[i].len, now);
			}
			/* give() and stop() notify; the timeout only matters
			 * when other threads' ACKs may need forwarding. */
			std::unique_lock<std::mutex> g(inbox_m_);
			if (inbox_.empty() && !stop_.load())
				inbox_cv_.wait_for(g, std::chrono::microseconds(cfg_.threads > 1 ? kIdleWaitUs : 100000));
			continue;
		}
		turn(clock());
	}
	/* Tensors handed over but not taken yet fail too: no caller waits
	 * for ever on a closed worker. */
	take_new_tensors();
	fail_all("worker closed");
}

uint32_t Sender::turn(uint64_t now)
{
	bool pushed_back = pump_send(now);
	/* Stepped, nothing sleeps: the caller's clock moves between polls. */
	const bool slept = !stepped_ && !pushed_back && coalesce(now);
	const uint32_t wait_us = stepped_ || pushed_back ? 0 : receive_wait_us(now);
	uint32_t n = tx_->recv(rxbufs_.data(), kRxBatch, wait_us);
	if (n && !slept)
		acks_in_bursts_ = n >= std::max<uint32_t>(2, std::min(cc_->window() / 8, kRxBatch / 2));
	rx_backlog_ = n == kRxBatch;
	now = clock();
	for (uint32_t i = 0; i < n; i++)
		handle_frame(rxbufs_[i].data, rxbufs_[i].len, now);
	for (auto &r : rings_) {
		const PsMessage *m;
		while ((m = r->peek()) != nullptr) {
			handle_message(tensor_of_seq(m->seq), *m, now);
			r->pop();
		}
	}
	/* Timeouts only with the receive ring drained: a thread that was
	 * not on a CPU for a while finds ACKs waiting, and must not take
	 * the fragments they complete for lost. */
	if (n < kRxBatch && now >= next_timer_ns_)
		check_timeouts(now);
	return n;
}

uint64_t Sender::poll(uint64_t now)
{
	stepped_now_ = now;
	take_new_tensors();
	/* As run() loops at once after a round that received: the ACKs it
	 * handled may have opened the window. */
	while (!active_.empty() && turn(now) > 0)
		take_new_tensors();
	return active_.empty() ? UINT64_MAX : next_timer_ns_;
}

/* A wake-up costs a system call and a context switch: 4 workers polling
 * every 50 us while their windows were full burned a CPU of the two the
 * lab's switch and PS also run on, and the ACKs they waited for came later
 * for it. A full window (and nothing to resend) can only change with a
 * packet, which ends the wait, or with the timer; a new tensor could not
 * be sent either. Otherwise (a tensor may arrive, other threads' ACKs may
 * need forwarding) the short wait stays. */
bool Sender::window_full() const
{
	return win_.in_flight() >= cc_->window() && retx_.empty() && cfg_.threads == 1;
}

uint32_t Sender::receive_wait_us(uint64_t now) const
{
	if (!window_full())
		return kBusyWaitUs;
	const uint64_t until_timer = next_timer_ns_ > now ? next_timer_ns_ - now : 0;
	return static_cast<uint32_t>(std::clamp<uint64_t>(until_timer, kBusyWaitUs * 1000ull, kFullWindowWaitNs) / 1000);
}

/* ACKs arrive one by one when the switch paces them: woken for each, four
 * workers spent half their CPU time in ppoll on a lab whose two CPUs also
 * run the switch and the PS (64 MB at 768 elements: 32 k wake-ups per
 * second and worker). With a full window nothing can be sent before an ACK
 * anyway, so the thread first sleeps an eighth of the smoothed RTT (at most
 * kCoalesceMaxNs, never past its timer's next check) and then takes the
 * ACKs that came meanwhile in one batch: the RTT grows by at most an
 * eighth, the wake-ups shrink by the batch size. Not when the ACKs already
 * come in bursts (a GRO message carries up to 64; the last wake-up without
 * a sleep found an eighth of the window, or half a receive batch, or more)
 * nor while the last receive filled its batch (more are waiting): there a
 * sleep only leaves the path idle (UDP with GSO/GRO, host_bench: 1.7 M
 * fragments/s without it, 0.14 M with it). Returns whether it slept. */
bool Sender::coalesce(uint64_t now)
{
	/* Every 16th turn goes without a sleep, so that the burst test looks
	 * at a wake-up of its own again. */
	if (!window_full() || acks_in_bursts_ || rx_backlog_ || (++coalesce_turns_ & 15) == 0)
		return false;
	uint64_t ns = std::min<uint64_t>(srtt_.load(std::memory_order_relaxed) / 8, kCoalesceMaxNs);
	if (next_timer_ns_ > now)
		ns = std::min(ns, next_timer_ns_ - now);
	else
		ns = 0;
	if (ns < kCoalesceMinNs)
		return false;
	std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
	return true;
}

void Sender::add_stats(WorkerStats *s) const
{
	auto g = [this](uint32_t c) { return c_.v[c].load(std::memory_order_relaxed); };
	s->tensors += g(C_TENSORS);
	s->fragments += g(C_FRAGMENTS);
	s->packets_sent += g(C_PACKETS);
	s->bytes_reduced += g(C_BYTES);
	s->retransmits += g(C_RETX);
	s->fast_retransmits += g(C_FAST_RETX);
	s->timeouts += g(C_TIMEOUTS);
	s->bypass_sent += g(C_BYPASS);
	s->acks += g(C_ACKS);
	s->duplicate_acks += g(C_DUP_ACKS);
	s->out_of_order_acks += g(C_OOO_ACKS);
	s->stale_acks += g(C_STALE_ACKS);
	s->ecn_acks += g(C_ECN_ACKS);
	s->delay_acks += g(C_DELAY_ACKS);
	s->col_acks += g(C_COL_ACKS);
	s->remaps += g(C_REMAPS);
	s->switch_acks += g(C_SWITCH_ACKS);
	s->float_acks += g(C_FLOAT_ACKS);
	s->overflow_requests += g(C_OVERFLOW_REQ);
	s->resend_requests += g(C_RESEND_REQ);
	s->float_fragments_sent += g(C_FLOAT_SENT);
	s->saturated_values += g(C_SATURATED);
	s->rx_not_ina += g(C_RX_NOT_INA);
	s->rx_malformed += g(C_RX_MALFORMED);
	s->rx_other_job += g(C_RX_OTHER_JOB);
	s->rx_not_from_ps += g(C_RX_NOT_FROM_PS);
	s->rx_not_for_worker += g(C_RX_NOT_FOR_WORKER);
	s->tx_backpressure += g(C_TX_BACKPRESSURE);
	s->rx_transport_drops += tx_->rx_drops();
	if (id_ == 0) {
		s->window = window_.load(std::memory_order_relaxed);
		s->agg_window = agg_window_.load(std::memory_order_relaxed);
		s->straggling = straggling_.load(std::memory_order_relaxed);
		s->srtt_ns = srtt_.load(std::memory_order_relaxed);
		s->rto_ns = rto_.load(std::memory_order_relaxed);
	}
}

} /* namespace ina */

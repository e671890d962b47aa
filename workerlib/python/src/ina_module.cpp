/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ina._ina: the worker library (ina::Worker) for Python, with pybind11.
 *
 * Tensors come in through the buffer protocol (a numpy array, or a CPU torch
 * tensor's .numpy() view; ina/__init__.py does that for torch), so this
 * module does not link libtorch. The buffer stays referenced until its
 * all-reduce is done, whether or not the caller keeps the handle. Waits
 * release the GIL and wake every 100 ms for signals (Ctrl-C works).
 *
 * Errors: a bad config key or value -> ValueError; a buffer that is not a
 * writable, contiguous float32 one -> TypeError; a failed open or all-reduce
 * -> ina.Error (a RuntimeError) with the library's one-line reason.
 */
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstdio>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ina/worker.h"

namespace py = pybind11;

namespace {

struct InaError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

/* A Py_buffer held until its all-reduce is done. Released (PyBuffer_Release)
 * only where the GIL is held: in Python-called methods and deallocators. */
using BufferRef = std::shared_ptr<py::buffer_info>;

BufferRef float_buffer(py::buffer b)
{
	py::buffer_info info;
	try {
		info = b.request(true);
	} catch (py::error_already_set &e) {
		throw py::type_error("ina: the tensor must be a writable buffer (the result is written in "
				     "place): " + std::string(e.what()));
	}
	if (info.itemsize != 4 || (info.format != "f" && info.format != "<f" && info.format != "=f"))
		throw py::type_error("ina: the tensor must be float32, got buffer format '" + info.format +
				     "' of " + std::to_string(info.itemsize) + "-byte items");
	py::ssize_t expect = info.itemsize;
	for (py::ssize_t d = info.ndim - 1; d >= 0; d--) {
		if (info.shape[d] != 1 && info.strides[d] != expect)
			throw py::type_error("ina: the tensor must be contiguous (call .contiguous() first)");
		expect *= info.shape[d];
	}
	return std::make_shared<py::buffer_info>(std::move(info));
}

size_t elements(const py::buffer_info &b)
{
	size_t n = 1;
	for (py::ssize_t d : b.shape)
		n *= static_cast<size_t>(d);
	return n;
}

double check_scale(double scale)
{
	if (scale != 0.0 && (!(scale > 0) || !std::isfinite(scale)))
		throw py::value_error("ina: scale must be a positive finite number (or 0 for the worker's)");
	return scale;
}

class Handle {
public:
	Handle(ina::AllreduceHandle h, BufferRef buf, std::string hint)
	    : h_(std::move(h)), buf_(std::move(buf)), hint_(std::move(hint))
	{
	}

	bool done() const { return h_.done(); }

	/* Waits until done (timeout < 0: no limit); false when the timeout
	 * passed first. Raises ina.Error when the all-reduce failed. */
	bool wait(double timeout)
	{
		auto t0 = std::chrono::steady_clock::now();
		for (;;) {
			bool d;
			{
				py::gil_scoped_release nogil;
				d = h_.wait_for(100);
			}
			if (d)
				break;
			if (PyErr_CheckSignals() != 0)
				throw py::error_already_set();
			if (timeout >= 0 &&
			    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >= timeout)
				return false;
		}
		std::string err;
		if (!h_.wait(&err))
			throw InaError("ina: all-reduce failed: " + err +
				       (err.find("no parameter packets") != std::string::npos ? hint_ : std::string()));
		return true;
	}

private:
	ina::AllreduceHandle h_;
	BufferRef buf_;
	std::string hint_;
};

class PyWorker {
public:
	explicit PyWorker(const std::vector<std::pair<std::string, std::string>> &keys)
	{
		ina::WorkerConfig cfg;
		std::string err;
		for (const auto &kv : keys)
			if (!ina::set_config_key(&cfg, kv.first, kv.second, &err))
				throw py::value_error("ina: " + err);
		if (!ina::validate(cfg, &err))
			throw py::value_error("ina: bad worker config: " + err);
		std::unique_ptr<ina::Worker> w;
		{
			py::gil_scoped_release nogil;
			w = ina::Worker::open(cfg, &err);
		}
		if (!w)
			throw InaError("ina: cannot open the worker: " + err);
		w_ = std::move(w);
		char ip[16] = "";
		uint32_t a = cfg.ps[0].ip;
		snprintf(ip, sizeof ip, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
		hint_ = " (is ina-ps at " + std::string(ip) + " serving job " + std::to_string(cfg.job_id) +
			", and is the path to it up?)";
	}

	~PyWorker() { close(); }

	Handle allreduce_async(py::buffer b, double scale)
	{
		check_scale(scale);
		BufferRef buf = float_buffer(std::move(b));
		ina::Worker &w = worker();
		prune();
		std::string err;
		ina::AllreduceHandle h =
		    w.allreduce_async(static_cast<float *>(buf->ptr), elements(*buf), scale, &err);
		if (!h.valid())
			throw InaError("ina: all-reduce refused: " + err +
				       (err.find("no parameter packets") != std::string::npos ? hint_ : std::string()));
		inflight_.push_back({h, buf});
		return Handle(h, buf, hint_);
	}

	void allreduce(py::buffer b, double scale)
	{
		Handle h = allreduce_async(std::move(b), scale);
		h.wait(-1);
		prune();
	}

	py::dict stats() const
	{
		ina::WorkerStats s = worker().stats();
		py::dict d;
#define F(x) d[#x] = s.x
		F(tensors); F(fragments); F(packets_sent); F(bytes_reduced); F(retransmits);
		F(fast_retransmits); F(timeouts); F(bypass_sent); F(acks); F(duplicate_acks);
		F(out_of_order_acks); F(stale_acks); F(ecn_acks); F(delay_acks); F(col_acks); F(remaps);
		F(switch_acks); F(float_acks); F(overflow_requests); F(resend_requests); F(float_fragments_sent);
		F(saturated_values); F(rx_not_ina); F(rx_malformed); F(rx_other_job); F(rx_not_from_ps);
		F(rx_not_for_worker); F(tx_backpressure); F(window); F(agg_window); F(straggling); F(srtt_ns);
		F(rto_ns);
#undef F
		return d;
	}

	py::dict config() const
	{
		const ina::WorkerConfig &c = worker().config();
		py::dict d;
		d["job"] = c.job_id;
		d["rank"] = c.rank;
		d["levels"] = c.levels;
		d["start_level"] = c.start_level;
		std::vector<int> bit, fan_in;
		for (uint32_t i = 0; i < INA_MAX_LEVELS; i++) {
			bit.push_back(c.bit[i]);
			fan_in.push_back(c.fan_in[i]);
		}
		d["bit"] = bit;
		d["fan_in"] = fan_in;
		d["elements"] = c.elements_per_packet;
		d["epoch"] = c.epoch;
		d["aggregators"] = c.aggregators;
		d["scale"] = c.scale;
		d["threads"] = c.threads;
		d["device"] = c.transport.device;
		return d;
	}

	std::string transport() const { return worker().transport_name(); }
	bool closed() const { return !w_; }

	/* Stops the sender threads; tensors still in flight stay unfinished
	 * (their handles report it) and their buffers are let go. */
	void close()
	{
		if (w_) {
			py::gil_scoped_release nogil;
			w_.reset();
		}
		inflight_.clear();
	}

private:
	struct InFlight {
		ina::AllreduceHandle h;
		BufferRef buf;
	};

	ina::Worker &worker() const
	{
		if (!w_)
			throw InaError("ina: the worker is closed");
		return *w_;
	}

	void prune()
	{
		size_t j = 0;
		for (size_t i = 0; i < inflight_.size(); i++)
			if (!inflight_[i].h.done())
				inflight_[j++] = std::move(inflight_[i]);
		inflight_.resize(j);
	}

	std::unique_ptr<ina::Worker> w_;
	std::vector<InFlight> inflight_;
	std::string hint_;
};

} /* namespace */

PYBIND11_MODULE(_ina, m)
{
	m.doc() = "The INA worker library: all-reduce of float32 tensors through INA switches and a PS";
	py::register_exception<InaError>(m, "Error", PyExc_RuntimeError);

	py::class_<Handle>(m, "Handle", "An all-reduce in flight")
	    .def("done", &Handle::done, "True once finished (successfully or not)")
	    .def("wait", &Handle::wait, py::arg("timeout") = -1.0,
		 "Waits until done (timeout in seconds, negative: none); False if the timeout passed "
		 "first; raises ina.Error if the all-reduce failed");

	py::class_<PyWorker>(m, "Worker", "A worker of an INA job (ina::Worker)")
	    .def(py::init<const std::vector<std::pair<std::string, std::string>> &>(), py::arg("keys"),
		 "Opens a worker from (key, value) pairs of the library's config keys")
	    .def("allreduce", &PyWorker::allreduce, py::arg("buffer"), py::arg("scale") = 0.0,
		 "Sums a float32 buffer over the job's workers, in place")
	    .def("allreduce_async", &PyWorker::allreduce_async, py::arg("buffer"), py::arg("scale") = 0.0,
		 "Starts an all-reduce; returns a Handle")
	    .def("stats", &PyWorker::stats)
	    .def("config", &PyWorker::config)
	    .def("transport", &PyWorker::transport)
	    .def("closed", &PyWorker::closed)
	    .def("close", &PyWorker::close);
}
